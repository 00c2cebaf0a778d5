"""ZITADEL from its recorded discovery document: an ID token with several audiences and ``azp``."""

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.providers import ZITADEL, Zitadel, ZitadelProvider
from tests.sansio_auth.driver import AuthPair
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import headers_of
from tests.sansio_auth.providers.service import recorded_oidc

ISSUER = "https://my-instance-abc123.zitadel.cloud"
CLIENT_ID = "263743869524541478@my-app"
ENV = {"AUTH_ZITADEL_ID": CLIENT_ID, "AUTH_ZITADEL_SECRET": "zs", "AUTH_ZITADEL_ISSUER": ISSUER}


def test_defaults_match_auth_js():
    provider = ZITADEL()
    assert Zitadel is ZITADEL
    assert isinstance(provider, ZitadelProvider)
    assert (provider.id, provider.name, provider.type) == ("zitadel", "ZITADEL", "oidc")
    assert provider.issuer is None
    assert provider.checks == ("pkce",)


def test_an_issuer_is_required():
    with pytest.raises(Configuration, match="AUTH_ZITADEL_ISSUER"):
        AuthPair.build(providers=[ZITADEL(client_id="x", client_secret="y")])


def test_sign_in():
    h = recorded_oidc(ZITADEL, "zitadel", env=ENV)
    h.start()
    assert h.authorization_url.startswith(f"{ISSUER}/oauth/v2/authorize?")
    event = h.assert_signed_in(h.come_back())
    assert headers_of(h.sent("POST", f"{ISSUER}/oauth/v2/token"))["authorization"]
    assert event["account"]["provider_account_id"] == "263743869524541477"
    assert event["account"]["expires_in"] == 43199
    assert h.session_user() == {"name": "Zoe Zitadel", "email": "zoe@example.com"}


def test_several_audiences_need_our_azp():
    h = recorded_oidc(ZITADEL, "zitadel", env=ENV, azp="263743869524541470")
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="`azp`")
