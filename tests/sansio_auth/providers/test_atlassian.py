"""Atlassian from recorded API responses: audience, state only, ``/me``."""

from sansio_auth.providers import Atlassian, AtlassianProvider
from tests.sansio_auth.providers.recorded import fixture, headers_of
from tests.sansio_auth.providers.service import Harness

TOKEN = "https://auth.atlassian.com/oauth/token"
ME = "https://api.atlassian.com/me"
ENV = {
    "AUTH_ATLASSIAN_ID": "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345",
    "AUTH_ATLASSIAN_SECRET": "ATOA-secret",
}


def test_defaults_match_auth_js():
    provider = Atlassian()
    assert isinstance(provider, AtlassianProvider)
    assert (provider.id, provider.name, provider.type) == ("atlassian", "Atlassian", "oauth")
    assert provider.authorization.url == "https://auth.atlassian.com/authorize"
    assert (provider.token.url, provider.userinfo.url) == (TOKEN, ME)
    assert provider.checks == ("state",)


def test_sign_in():
    h = Harness.build(Atlassian, env=ENV)
    h.route("POST", TOKEN, fixture("atlassian/token.json"))
    h.route("GET", ME, fixture("atlassian/me.json"))
    h.start()
    params = h.authorization
    assert h.authorization_url.startswith("https://auth.atlassian.com/authorize?")
    assert (params["audience"], params["scope"]) == ("api.atlassian.com", "read:me")
    assert params["state"]
    assert "code_challenge" not in params
    event = h.assert_signed_in(h.come_back())
    assert headers_of(h.sent("POST", TOKEN))["authorization"].startswith("Basic ")
    assert event["account"]["provider_account_id"] == "112233:aa9ddb89-4b2e-46b4-8f7f-0c4e8f1d2a3b"
    assert h.session_user() == {
        "name": "Mia Krystof",
        "email": "mia@example.com",
        "image": "https://avatar-management--avatars.us-west-2.prod.public.atl-paas.net/"
        "112233:aa9ddb89/1234abcd-128.png",
    }
