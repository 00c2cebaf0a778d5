"""GitLab from recorded API responses: URLs, PKCE, the profile, self-managed instances."""

from sansio_auth.providers import GitLab, GitLabProvider
from sansio_auth.providers.services.gitlab import SERVICE
from tests.sansio_auth.driver import ORIGIN
from tests.sansio_auth.providers.recorded import fixture, fixture_json, form_of, headers_of
from tests.sansio_auth.providers.service import Harness

gitlab_profile = SERVICE.profile

TOKEN = "https://gitlab.com/oauth/token"
USER = "https://gitlab.com/api/v4/user"
ENV = {"AUTH_GITLAB_ID": "4f8c0a5e6b7d", "AUTH_GITLAB_SECRET": "gloas-recorded-secret"}


def gitlab(provider=GitLab, token=TOKEN, user=USER):
    h = Harness.build(provider, env=ENV)
    h.route("POST", token, fixture("gitlab/token.json"))
    h.route("GET", user, fixture("gitlab/user.json"))
    return h


def test_defaults_match_auth_js():
    provider = GitLab()
    assert isinstance(provider, GitLabProvider)
    assert (provider.id, provider.name, provider.type) == ("gitlab", "GitLab", "oauth")
    assert provider.authorization.url == "https://gitlab.com/oauth/authorize"
    assert provider.authorization.params == {"scope": "read_user"}
    assert (provider.token.url, provider.userinfo.url) == (TOKEN, USER)
    assert provider.checks == ("pkce",)
    assert provider.client.token_endpoint_auth_method == "client_secret_basic"


def test_authorization_request():
    h = gitlab()
    h.start()
    assert h.authorization_url.startswith("https://gitlab.com/oauth/authorize?")
    params = h.authorization
    assert params["scope"] == "read_user"
    assert params["client_id"] == "4f8c0a5e6b7d"
    assert params["redirect_uri"] == f"{ORIGIN}/auth/callback/gitlab"
    assert params["code_challenge_method"] == "S256"
    assert params["state"]  # no metadata says GitLab enforces S256 PKCE


def test_sign_in():
    h = gitlab()
    event = h.assert_signed_in(h.sign_in())
    token = h.sent("POST", TOKEN)
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert form_of(token)["grant_type"] == "authorization_code"
    assert len(form_of(token)["code_verifier"]) == 43
    user = h.sent("GET", USER)
    assert headers_of(user)["authorization"] == "Bearer glpat-3f9c1d2e8b7a6f5e4d3c"
    account = event["account"]
    assert account["provider_account_id"] == "1234567"
    assert (account["token_type"], account["scope"]) == ("bearer", "read_user")
    assert account["expires_at"] == int(h.pair.clock.now) + 7200
    assert account["created_at"] == 1799999990
    assert h.session_user() == {
        "name": "John Smith",
        "email": "john@example.com",
        "image": "https://gitlab.com/uploads/-/system/user/avatar/1234567/avatar.png",
    }


def test_self_managed_instance():
    provider = GitLab(base_url="https://gitlab.example.com/")
    assert provider.authorization.url == "https://gitlab.example.com/oauth/authorize"
    assert provider.authorization.params == {"scope": "read_user"}
    h = gitlab(
        provider,
        token="https://gitlab.example.com/oauth/token",
        user="https://gitlab.example.com/api/v4/user",
    )
    h.start()
    assert h.authorization_url.startswith("https://gitlab.example.com/oauth/authorize?")
    h.assert_signed_in(h.come_back())
    scoped = GitLab(base_url="https://gl.example", authorization={"params": {"scope": "openid"}})
    assert scoped.authorization.url == "https://gl.example/oauth/authorize"
    assert scoped.authorization.params == {"scope": "openid"}


def test_profile_mapping():
    user = fixture_json("gitlab/user.json")
    assert gitlab_profile({**user, "name": None})["name"] == "john_smith"
    assert gitlab_profile({**user, "sub": 42})["id"] == "42"
