"""Amazon Cognito from its recorded discovery document: the user pool issuer, hosted UI domain."""

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.providers import Cognito, CognitoProvider
from tests.sansio_auth.driver import AuthPair
from tests.sansio_auth.providers.recorded import headers_of
from tests.sansio_auth.providers.service import recorded_oidc

ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI"
DOMAIN = "https://myapp.auth.eu-west-1.amazoncognito.com"
ENV = {
    "AUTH_COGNITO_ID": "4f7recordedcognitoclient",
    "AUTH_COGNITO_SECRET": "cognito-secret",
    "AUTH_COGNITO_ISSUER": ISSUER,
}


def test_defaults_match_auth_js():
    provider = Cognito()
    assert isinstance(provider, CognitoProvider)
    assert (provider.id, provider.name, provider.type) == ("cognito", "Cognito", "oidc")
    assert provider.issuer is None
    assert provider.checks == ("pkce",)
    assert provider.style is not None
    assert provider.style.brand_color == "#C17B9E"


def test_an_issuer_is_required():
    with pytest.raises(Configuration, match="AUTH_COGNITO_ISSUER"):
        AuthPair.build(providers=[Cognito(client_id="x", client_secret="y")])


def test_sign_in():
    h = recorded_oidc(Cognito, "cognito", env=ENV)
    h.start()
    assert h.authorization_url.startswith(f"{DOMAIN}/oauth2/authorize?")
    assert h.authorization["scope"] == "openid profile email"
    event = h.assert_signed_in(h.come_back())
    assert headers_of(h.sent("POST", f"{DOMAIN}/oauth2/token"))["authorization"]
    assert event["account"]["provider_account_id"] == "94f8e4a8-b0c1-70d2-e3f4-a5b6c7d8e9f0"
    assert event["profile"]["cognito:username"] == "94f8e4a8-b0c1-70d2-e3f4-a5b6c7d8e9f0"
    assert h.session_user() == {"email": "carol@example.com"}  # no name attribute in the pool
