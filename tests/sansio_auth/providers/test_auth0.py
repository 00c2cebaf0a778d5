"""Auth0 from its recorded discovery document and token response (ID token signed here)."""

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.providers import Auth0, Auth0Provider
from tests.sansio_auth.driver import AuthPair
from tests.sansio_auth.providers.recorded import headers_of
from tests.sansio_auth.providers.service import recorded_oidc

ISSUER = "https://dev-abc123.us.auth0.com/"
CLIENT_ID = "yV8n3recordedAuth0ClientId"
ENV = {"AUTH_AUTH0_ID": CLIENT_ID, "AUTH_AUTH0_SECRET": "a0-secret", "AUTH_AUTH0_ISSUER": ISSUER}


def test_defaults_match_auth_js():
    provider = Auth0()
    assert isinstance(provider, Auth0Provider)
    assert (provider.id, provider.name, provider.type) == ("auth0", "Auth0", "oidc")
    assert provider.issuer is None
    assert provider.checks == ("pkce",)
    assert provider.client.token_endpoint_auth_method == "client_secret_basic"
    assert provider.style is not None
    assert provider.style.bg == "#EB5424"


def test_an_issuer_is_required():
    env = {k: v for k, v in ENV.items() if k != "AUTH_AUTH0_ISSUER"}
    with pytest.raises(Configuration, match="AUTH_AUTH0_ISSUER"):
        AuthPair.build(providers=[Auth0], env=env)


def test_sign_in():
    h = recorded_oidc(Auth0, "auth0", env=ENV)
    h.start()
    assert h.authorization_url.startswith("https://dev-abc123.us.auth0.com/authorize?")
    params = h.authorization
    assert params["scope"] == "openid profile email"
    assert params["code_challenge_method"] == "S256"
    event = h.assert_signed_in(h.come_back())
    token = h.sent("POST", "https://dev-abc123.us.auth0.com/oauth/token")
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert event["account"]["provider_account_id"] == "auth0|6543a1b2c3d4e5f6a7b8c9d0"
    assert event["account"]["expires_at"] == int(h.pair.clock.now) + 86400
    assert event["profile"]["nickname"] == "jane.doe"
    assert h.session_user() == {
        "name": "Jane Doe",
        "email": "jane.doe@example.com",
        "image": "https://s.gravatar.com/avatar/0f1e2d3c4b5a?s=480&r=pg"
        "&d=https%3A%2F%2Fcdn.auth0.com%2Favatars%2Fjd.png",
    }


def test_issuer_given_in_code():
    env = {k: v for k, v in ENV.items() if k != "AUTH_AUTH0_ISSUER"}
    h = recorded_oidc(Auth0(issuer=ISSUER), "auth0", env=env)
    h.assert_signed_in(h.sign_in())
