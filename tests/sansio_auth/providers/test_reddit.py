"""Reddit from recorded API responses: state only, the avatar unescaped."""

from sansio_auth.providers import Reddit, RedditProvider
from sansio_auth.providers.services.reddit import reddit_profile
from tests.sansio_auth.providers.recorded import fixture, fixture_json, headers_of
from tests.sansio_auth.providers.service import Harness

TOKEN = "https://www.reddit.com/api/v1/access_token"
ME = "https://oauth.reddit.com/api/v1/me"
ENV = {"AUTH_REDDIT_ID": "p-jcoLKBynTLew", "AUTH_REDDIT_SECRET": "gko_LXELoV07ZBNUXrvWZfzE3aI"}


def test_defaults_match_auth_js():
    provider = Reddit()
    assert isinstance(provider, RedditProvider)
    assert (provider.id, provider.name, provider.type) == ("reddit", "Reddit", "oauth")
    assert provider.authorization.url == "https://www.reddit.com/api/v1/authorize"
    assert (provider.token.url, provider.userinfo.url) == (TOKEN, ME)
    assert provider.checks == ("state",)


def test_sign_in():
    h = Harness.build(Reddit, env=ENV)
    h.route("POST", TOKEN, fixture("reddit/token.json"))
    h.route("GET", ME, fixture("reddit/me.json"))
    h.start()
    params = h.authorization
    assert h.authorization_url.startswith("https://www.reddit.com/api/v1/authorize?")
    assert params["scope"] == "identity"
    assert params["state"]
    assert "code_challenge" not in params
    event = h.assert_signed_in(h.come_back())
    assert headers_of(h.sent("POST", TOKEN))["authorization"].startswith("Basic ")
    assert event["account"]["provider_account_id"] == "1w72"
    assert h.session_user() == {
        "name": "spez",
        "email": None,
        "image": "https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_snoo.png"
        "?width=256&height=256&crop=256:256,smart&s=abc",
    }


def test_snoovatar_first():
    me = {**fixture_json("reddit/me.json"), "snoovatar_img": "https://i.redd.it/snoovatar/a.png"}
    assert reddit_profile(me)["image"] == "https://i.redd.it/snoovatar/a.png"
    assert reddit_profile({"id": "1", "name": "x", "icon_img": ""})["image"] is None
