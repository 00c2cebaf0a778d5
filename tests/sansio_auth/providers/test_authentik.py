"""authentik from its recorded discovery document: the per-application issuer."""

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.providers import Authentik, AuthentikProvider
from tests.sansio_auth.driver import AuthPair
from tests.sansio_auth.providers.recorded import headers_of
from tests.sansio_auth.providers.service import recorded_oidc

ISSUER = "https://authentik.example.com/application/o/my-app/"
ENV = {
    "AUTH_AUTHENTIK_ID": "RecordedAuthentikClientId",
    "AUTH_AUTHENTIK_SECRET": "ak-secret",
    "AUTH_AUTHENTIK_ISSUER": ISSUER,
}


def test_defaults_match_auth_js():
    provider = Authentik()
    assert isinstance(provider, AuthentikProvider)
    assert (provider.id, provider.name, provider.type) == ("authentik", "Authentik", "oidc")
    assert provider.issuer is None
    assert provider.checks == ("pkce",)


def test_an_issuer_is_required():
    with pytest.raises(Configuration, match="AUTH_AUTHENTIK_ISSUER"):
        AuthPair.build(providers=[Authentik(client_id="x", client_secret="y")])


def test_sign_in():
    h = recorded_oidc(Authentik, "authentik", env=ENV)
    h.start()
    assert h.authorization_url.startswith("https://authentik.example.com/application/o/authorize/?")
    event = h.assert_signed_in(h.come_back())
    token = h.sent("POST", "https://authentik.example.com/application/o/token/")
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert event["account"]["provider_account_id"].startswith("a3f1c0e9")
    assert event["profile"]["groups"] == ["authentik Admins"]
    assert h.session_user() == {"name": "authentik Default Admin", "email": "akadmin@example.com"}
