"""Facebook from recorded Graph API responses: the dialog, client_secret_post, ``/me`` fields."""

from sansio_auth.providers import Facebook, FacebookProvider
from sansio_auth.providers.services.facebook import SERVICE
from tests.sansio_auth.driver import query_of
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import fixture, fixture_json, form_of, headers_of
from tests.sansio_auth.providers.service import Harness

facebook_profile = SERVICE.profile

TOKEN = "https://graph.facebook.com/oauth/access_token"
ME = "https://graph.facebook.com/me"
ENV = {
    "AUTH_FACEBOOK_ID": "1234567890123456",
    "AUTH_FACEBOOK_SECRET": "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
}


def facebook(me=None):
    h = Harness.build(Facebook, env=ENV)
    h.route("POST", TOKEN, fixture("facebook/token.json"))
    h.route("GET", ME, me or fixture("facebook/me.json"))
    return h


def test_defaults():
    provider = Facebook()
    assert isinstance(provider, FacebookProvider)
    assert (provider.id, provider.name, provider.type) == ("facebook", "Facebook", "oauth")
    assert provider.authorization.url == "https://www.facebook.com/v25.0/dialog/oauth"
    assert provider.authorization.params == {"scope": "email"}
    assert provider.userinfo.url == ME
    assert provider.userinfo.params == {"fields": "id,name,email,picture"}
    assert provider.checks == ("pkce",)
    assert provider.client.token_endpoint_auth_method == "client_secret_post"


def test_sign_in():
    h = facebook()
    h.start()
    assert h.authorization_url.startswith("https://www.facebook.com/v25.0/dialog/oauth?")
    assert h.authorization["scope"] == "email"
    event = h.assert_signed_in(h.come_back())
    token = h.sent("POST", TOKEN)
    assert "authorization" not in headers_of(token)
    assert form_of(token)["client_id"] == "1234567890123456"
    assert form_of(token)["client_secret"] == ENV["AUTH_FACEBOOK_SECRET"]
    me = h.sent("GET", ME)
    assert query_of(me.url) == {"fields": "id,name,email,picture"}
    assert headers_of(me)["authorization"].startswith("Bearer EAAG")
    assert event["account"]["provider_account_id"] == "10224857923562781"
    assert event["account"]["expires_in"] == 5183944
    assert h.session_user() == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "image": fixture_json("facebook/me.json")["picture"]["data"]["url"],
    }


def test_graph_error_ends_on_the_error_page():
    h = facebook(me=fixture("facebook/error.json", status=400))
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="HTTP 400")


def test_no_picture_no_image():
    me = {k: v for k, v in fixture_json("facebook/me.json").items() if k != "picture"}
    assert facebook_profile(me)["image"] is None
