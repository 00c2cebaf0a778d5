"""Keycloak from its recorded discovery document: the realm issuer and RFC 9207 ``iss``."""

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.providers import Keycloak, KeycloakProvider
from tests.sansio_auth.driver import AuthPair
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import form_of, headers_of
from tests.sansio_auth.providers.service import recorded_oidc

ISSUER = "https://sso.example.com/realms/acme"
ENV = {"AUTH_KEYCLOAK_ID": "web-app", "AUTH_KEYCLOAK_SECRET": "kc", "AUTH_KEYCLOAK_ISSUER": ISSUER}


def test_defaults_match_auth_js():
    provider = Keycloak()
    assert isinstance(provider, KeycloakProvider)
    assert (provider.id, provider.name, provider.type) == ("keycloak", "Keycloak", "oidc")
    assert provider.issuer is None
    assert provider.checks == ("pkce",)
    assert provider.style is not None
    assert provider.style.brand_color == "#428bca"


def test_an_issuer_is_required():
    with pytest.raises(Configuration, match="AUTH_KEYCLOAK_ISSUER"):
        AuthPair.build(providers=[Keycloak(client_id="web-app", client_secret="kc")])


def test_sign_in_with_the_iss_parameter():
    h = recorded_oidc(Keycloak, "keycloak", env=ENV)
    h.start()
    assert h.authorization_url.startswith(f"{ISSUER}/protocol/openid-connect/auth?")
    assert h.authorization["scope"] == "openid profile email"
    event = h.assert_signed_in(h.come_back(iss=ISSUER, session_state="d7c0b6f4"))
    token = h.sent("POST", f"{ISSUER}/protocol/openid-connect/token")
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert len(form_of(token)["code_verifier"]) == 43
    assert event["account"]["provider_account_id"] == "f2b0c1d3-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    assert event["account"]["session_state"] == "d7c0b6f4-5a3e-4b2d-9c1a-8e7f6d5c4b3a"
    assert event["account"]["refresh_expires_in"] == 1800
    assert h.session_user() == {"name": "Alex Admin", "email": "alex@example.com"}


def test_a_missing_iss_parameter_is_refused():
    h = recorded_oidc(Keycloak, "keycloak", env=ENV)
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="`iss`")


def test_a_token_for_another_client_is_refused():
    h = recorded_oidc(Keycloak, "keycloak", env=ENV, azp="other-app")
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(iss=ISSUER), because="`azp`")
