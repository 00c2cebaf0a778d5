"""Twitter / X from recorded API responses: PKCE + state, the ``data`` envelope."""

from sansio_auth.providers import Twitter, TwitterProvider
from sansio_auth.providers.services.twitter import SERVICE
from tests.sansio_auth.driver import query_of, written
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import fixture, fixture_json, headers_of, json_response
from tests.sansio_auth.providers.service import Harness

twitter_profile = SERVICE.profile

TOKEN = "https://api.x.com/2/oauth2/token"
ME = "https://api.x.com/2/users/me"
ENV = {"AUTH_TWITTER_ID": "cHJlY29yZGVkLWNsaWVudC1pZA", "AUTH_TWITTER_SECRET": "x-recorded-secret"}


def twitter(me=None):
    h = Harness.build(Twitter, env=ENV)
    h.route("POST", TOKEN, fixture("twitter/token.json"))
    h.route("GET", ME, me or fixture("twitter/users_me.json"))
    return h


def test_defaults_match_auth_js():
    provider = Twitter()
    assert isinstance(provider, TwitterProvider)
    assert (provider.id, provider.name, provider.type) == ("twitter", "Twitter", "oauth")
    assert provider.authorization.url == "https://x.com/i/oauth2/authorize"
    assert provider.checks == ("pkce", "state")
    assert provider.client.token_endpoint_auth_method == "client_secret_basic"


def test_authorization_request_has_pkce_and_state():
    h = twitter()
    started = h.start()
    params = h.authorization
    assert h.authorization_url.startswith("https://x.com/i/oauth2/authorize?")
    assert params["scope"] == "users.read tweet.read offline.access"
    assert params["code_challenge_method"] == "S256"
    assert params["state"]
    assert {"authjs.state", "authjs.pkce.code_verifier"} <= set(written(started))


def test_sign_in_unwraps_data():
    h = twitter()
    event = h.assert_signed_in(h.sign_in())
    assert headers_of(h.sent("POST", TOKEN))["authorization"].startswith("Basic ")
    me = h.sent("GET", ME)
    assert query_of(me.url) == {"user.fields": "profile_image_url"}
    assert event["account"]["provider_account_id"] == "2244994945"
    assert event["account"]["scope"] == "users.read tweet.read offline.access"
    assert event["profile"]["data"]["username"] == "XDevelopers"
    assert h.session_user() == {
        "name": "X Dev",
        "email": None,
        "image": "https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg",
    }


def test_a_wrong_state_is_refused():
    h = twitter()
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(state="forged"), because="state")
    assert h.service.sent("POST", TOKEN) == []


def test_an_answer_without_data_is_a_profile_error():
    h = twitter(me=json_response({"errors": [{"title": "Forbidden"}]}))
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="no data.id")
    assert h.pair.performer.log_codes("error") == ["OAuthProfileParseError"]


def test_an_unauthorized_answer_fails():
    h = twitter(me=fixture("twitter/unauthorized.json", status=401))
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="HTTP 401")


def test_email_when_the_app_asks_for_it():
    data = fixture_json("twitter/users_me.json")["data"]
    assert twitter_profile({"data": data})["email"] is None
    assert (
        twitter_profile({"data": {**data, "confirmed_email": "dev@x.com"}})["email"] == "dev@x.com"
    )
