"""GitHub from recorded API responses: URLs, PKCE, the e-mail fallback, errors, the button."""

from urllib.parse import urlsplit

import pytest

from sansio_auth import AuthConfig
from sansio_auth.providers import GitHub, GitHubProvider
from sansio_auth.providers.services.github import verified_email
from tests.sansio_auth.driver import ORIGIN, SECRET, AuthPair, query_of, written
from tests.sansio_auth.oauth.fake_op import assert_failed, start
from tests.sansio_auth.providers.recorded import (
    Recorded,
    callback,
    fixture,
    fixture_json,
    form_of,
    headers_of,
    json_response,
)

TOKEN = "https://github.com/login/oauth/access_token"
USER = "https://api.github.com/user"
EMAILS = "https://api.github.com/user/emails"
ISSUER = "https://github.com/login/oauth"


def github(**routes):
    service = Recorded(
        {
            ("POST", TOKEN): fixture("github/token.json"),
            ("GET", USER): fixture("github/user.json"),
            ("GET", EMAILS): fixture("github/emails.json"),
            **{("GET", url): answer for url, answer in routes.items()},
        }
    )
    config = AuthConfig(
        secret=SECRET,
        trust_host=True,
        providers=[GitHub],
        events={"sign_in": lambda **message: None},
    )
    pair = AuthPair.build(config, env={"AUTH_GITHUB_ID": "gh-id", "AUTH_GITHUB_SECRET": "gh-sec"})
    pair.performer.http = service.handle
    return pair, service


def come_back(pair, **extra):
    started = start(pair.browser, "github")
    return started, callback(pair.browser, "github", answer(started, code="c0de", **extra))


def answer(started, **params):
    """GitHub's answer to the authorization request ``started``: ``iss``, the ``state`` it
    was sent, and ``params``."""
    return {"iss": ISSUER, "state": query_of(started.location)["state"], **params}


def test_defaults_match_auth_js():
    provider = GitHub()
    assert isinstance(provider, GitHubProvider)
    assert (provider.id, provider.name, provider.type) == ("github", "GitHub", "oauth")
    assert provider.issuer == ISSUER
    assert provider.authorization.url == "https://github.com/login/oauth/authorize"
    assert provider.authorization.params == {"scope": "read:user user:email"}
    assert provider.token.url == TOKEN
    assert provider.userinfo.url == USER
    assert provider.checks == ("pkce",)
    assert provider.client.token_endpoint_auth_method == "client_secret_basic"


def test_authorization_request():
    pair, _ = github()
    started = start(pair.browser, "github")
    location = started.location
    assert location.startswith("https://github.com/login/oauth/authorize?")
    params = query_of(location)
    assert params["client_id"] == "gh-id"
    assert params["scope"] == "read:user user:email"
    assert params["redirect_uri"] == f"{ORIGIN}/auth/callback/github"
    assert params["code_challenge_method"] == "S256"
    # GitHub publishes no metadata saying it enforces S256: state guards the callback too
    assert "state" in params
    assert "nonce" not in params
    assert {"authjs.pkce.code_verifier", "authjs.state"} <= set(written(started))


def test_sign_in_with_the_email_fallback():
    pair, service = github()
    _, response = come_back(pair)
    assert response.location == ORIGIN
    assert "authjs.session-token" in written(response)
    [token] = service.sent("POST", TOKEN)
    assert headers_of(token)["accept"] == "application/json"
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert form_of(token)["code"] == "c0de"
    assert len(form_of(token)["code_verifier"]) == 43
    for url in (USER, EMAILS):
        [request] = service.sent("GET", url)
        headers = headers_of(request)
        assert headers["authorization"] == "Bearer gho_16C7e42F292c6912E7710c838347Ae178B4a"
        assert headers["user-agent"]
    [event] = pair.performer.emitted("sign_in")
    assert event["account"]["provider_account_id"] == "583231"
    assert event["account"]["token_type"] == "bearer"
    assert event["account"]["scope"] == "read:user,user:email"
    assert event["profile"]["login"] == "octocat"
    assert pair.browser.session()["user"] == {
        "name": "The Octocat",
        "email": "octocat@github.com",
        "image": "https://avatars.githubusercontent.com/u/583231?v=4",
    }


def test_public_email_needs_no_second_request():
    user = {**fixture_json("github/user.json"), "email": "public@example.com", "name": None}
    pair, service = github(**{USER: json_response(user)})
    come_back(pair)
    assert service.sent("GET", EMAILS) == []
    assert pair.browser.session()["user"]["email"] == "public@example.com"
    assert pair.browser.session()["user"]["name"] == "octocat"  # login when no name


@pytest.mark.parametrize(
    ("emails", "chosen"),
    [
        (fixture_json("github/emails.json"), "Octocat@GitHub.com"),
        (
            [
                {"email": "p@x", "primary": True, "verified": False},
                {"email": "v@x", "verified": True},
            ],
            "v@x",
        ),
        ([{"email": "p@x", "primary": True, "verified": False}], None),
        ([], None),
        ({"message": "Requires authentication"}, None),
    ],
)
def test_verified_email(emails, chosen):
    assert verified_email(emails) == chosen


def test_emails_endpoint_refusal_leaves_no_email():
    pair, _ = github(**{EMAILS: json_response({"message": "Not Found"}, 404)})
    _, response = come_back(pair)
    assert "authjs.session-token" in written(response)
    assert pair.browser.session()["user"]["email"] is None


def test_user_denies_access():
    pair, service = github()
    started = start(pair.browser, "github")
    pair.performer.clear()
    response = callback(
        pair.browser,
        "github",
        {
            "state": query_of(started.location)["state"],
            "error": "access_denied",
            "error_description": "The user has denied your application access.",
            "error_uri": "https://docs.github.com/apps/troubleshooting-authorization-request-errors/#access-denied",
        },
    )
    assert_failed(
        pair,
        response,
        "OAuthCallbackError",
        page="signin",
        checks={"authjs.pkce.code_verifier", "authjs.state"},
        because="OAuth Provider returned an error",
    )
    assert service.requests == []


def test_bad_verification_code_in_a_200():
    pair, _ = github()
    pair.performer.http = Recorded({("POST", TOKEN): fixture("github/token_error.json")}).handle
    pair.browser.csrf_token()
    started = start(pair.browser, "github")
    pair.performer.clear()
    response = callback(pair.browser, "github", answer(started, code="stale"))
    assert_failed(pair, response, because="bad_verification_code")


def test_iss_of_another_server_is_refused():
    pair, service = github()
    started = start(pair.browser, "github")
    pair.performer.clear()
    response = callback(
        pair.browser, "github", answer(started, code="c", iss="https://evil.example")
    )
    assert_failed(pair, response, because="`iss`")
    assert service.requests == []


def test_enterprise_server():
    provider = GitHub(enterprise={"base_url": "https://ghe.corp.example/"}, client_id="x")
    assert provider.issuer == "https://ghe.corp.example/login/oauth"
    assert provider.authorization.url == "https://ghe.corp.example/login/oauth/authorize"
    assert provider.authorization.params == {"scope": "read:user user:email"}
    assert provider.token.url == "https://ghe.corp.example/login/oauth/access_token"
    assert provider.userinfo.url == "https://ghe.corp.example/api/v3/user"
    scoped = GitHub(
        enterprise={"base_url": "https://ghe.x"}, authorization={"params": {"scope": "user"}}
    )
    assert scoped.authorization.url == "https://ghe.x/login/oauth/authorize"
    assert scoped.authorization.params == {"scope": "user"}


def test_overrides():
    provider = GitHub(
        client_id="id", allow_dangerous_email_account_linking=True, checks=["pkce", "state"]
    )
    assert provider.allow_dangerous_email_account_linking
    assert provider.checks == ("pkce", "state")


def test_sign_in_page_button():
    pair, _ = github()
    page = pair.browser.get("/auth/signin").body.decode()
    action = f'action="{ORIGIN}/auth/signin/github"'
    assert action in page
    assert "Sign in with GitHub" in page
    assert "--provider-bg:#24292f" in page
    assert "https://authjs.dev/img/providers/github.svg" in page
    assert 'name="csrfToken"' in page
    form = page[page.index(action) :]
    assert urlsplit(ORIGIN).netloc in form


def test_profile_mapping_of_the_record():
    provider = GitHub()
    assert provider.profile is not None
    assert provider.profile(fixture_json("github/user.json")) == {
        "id": "583231",
        "name": "The Octocat",
        "email": None,
        "image": "https://avatars.githubusercontent.com/u/583231?v=4",
    }
