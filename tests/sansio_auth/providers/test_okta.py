"""Okta from its recorded discovery document: PKCE and state."""

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.providers import Okta, OktaProvider
from tests.sansio_auth.driver import AuthPair, written
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import form_of, headers_of
from tests.sansio_auth.providers.service import recorded_oidc

ISSUER = "https://dev-123456.okta.com"
ENV = {"AUTH_OKTA_ID": "0oa1b2c3d4E5f6G7h8i9", "AUTH_OKTA_SECRET": "ok", "AUTH_OKTA_ISSUER": ISSUER}


def test_defaults_match_auth_js():
    provider = Okta()
    assert isinstance(provider, OktaProvider)
    assert (provider.id, provider.name, provider.type) == ("okta", "Okta", "oidc")
    assert provider.issuer is None
    assert provider.checks == ("pkce", "state")
    assert provider.style is not None
    assert (provider.style.bg, provider.style.text) == ("#000", "#fff")


def test_an_issuer_is_required():
    with pytest.raises(Configuration, match="AUTH_OKTA_ISSUER"):
        AuthPair.build(providers=[Okta], env={"AUTH_OKTA_ID": "x", "AUTH_OKTA_SECRET": "y"})


def test_sign_in():
    h = recorded_oidc(Okta, "okta", env=ENV)
    started = h.start()
    assert h.authorization_url.startswith(f"{ISSUER}/oauth2/v1/authorize?")
    params = h.authorization
    assert params["state"]
    assert params["code_challenge_method"] == "S256"
    assert {"authjs.state", "authjs.pkce.code_verifier"} <= set(written(started))
    event = h.assert_signed_in(h.come_back())
    token = h.sent("POST", f"{ISSUER}/oauth2/v1/token")
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert "client_secret" not in form_of(token)
    assert event["account"]["provider_account_id"] == "00u1a2b3c4D5e6F7g8h9"
    assert h.session_user() == {"name": "Olivia Okta", "email": "olivia@example.com"}


def test_a_forged_state_is_refused():
    h = recorded_oidc(Okta, "okta", env=ENV)
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(state="forged"), because="state")
