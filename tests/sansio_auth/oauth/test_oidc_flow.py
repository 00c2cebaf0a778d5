"""OIDC sign-in through the engine against the in-memory OP: happy paths and every refusal."""

from urllib.parse import parse_qsl, urlsplit

import pytest

from sansio_auth import jwt
from sansio_auth.events import SendHTTP
from tests.sansio_auth.driver import ORIGIN, SECRET, AuthPair, deleted_names, query_of, written
from tests.sansio_auth.oauth.fake_op import (
    CLIENT_ID,
    ISSUER,
    AuthorizationResult,
    FakeOP,
    assert_failed,
    assert_signed_in,
    build,
    sign_in,
    start,
)

SESSION = "authjs.session-token"
CHECKS = {"authjs.pkce.code_verifier"}
ALL_CHECKS = {"authjs.pkce.code_verifier", "authjs.state", "authjs.nonce"}


def session_token(pair):
    return jwt.decode(pair.browser.cookies()[SESSION], SECRET, SESSION, now=pair.clock.now)


# -- happy paths ---------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_sign_in_with_a_confidential_client(method):
    op = FakeOP(auth_method=method)
    pair = build(op)
    response = sign_in(pair.browser, op)
    event = assert_signed_in(pair, response)
    assert deleted_names(response) >= CHECKS
    [token_request] = [r for r in op.requests if r.url == op.endpoint("token")]
    headers = dict(token_request.headers)
    body = dict(parse_qsl(token_request.body.decode()))
    assert headers["content-type"] == "application/x-www-form-urlencoded;charset=UTF-8"
    assert headers["accept"] == "application/json"
    assert list(body)[:4] == ["redirect_uri", "code", "code_verifier", "grant_type"]
    assert body["redirect_uri"] == f"{ORIGIN}/auth/callback/op"
    if method == "client_secret_basic":
        assert headers["authorization"].startswith("Basic ")
        assert "client_secret" not in body
    else:
        assert "authorization" not in headers
        assert body["client_id"] == CLIENT_ID
    account = event["account"]
    assert account["provider"] == "op"
    assert account["type"] == "oidc"
    assert account["token_type"] == "bearer"
    assert account["expires_in"] == 3600
    assert account["expires_at"] == int(pair.clock.now) + 3600
    assert account["scope"] == "openid profile email"
    assert account["id_token"].count(".") == 2
    assert account["refresh_token"].startswith("rt-")
    assert event["profile"]["sub"] == "alice-sub"
    assert event["profile"]["iss"] == ISSUER
    assert event["user"]["id"] != "alice-sub"  # never the provider's id (a fresh UUID)
    assert event["user"]["email"] == "alice@example.com"


def test_public_client_with_pkce():
    op = FakeOP(auth_method="none")
    pair = build(op, client_secret=None)
    response = sign_in(pair.browser, op)
    assert_signed_in(pair, response)
    [token_request] = [r for r in op.requests if r.url == op.endpoint("token")]
    body = dict(parse_qsl(token_request.body.decode()))
    assert body["client_id"] == CLIENT_ID
    assert "client_secret" not in body
    assert "authorization" not in dict(token_request.headers)


def test_nonce_and_state_checks():
    op = FakeOP()
    pair = build(op, checks=["pkce", "state", "nonce"])
    started = start(pair.browser)
    params = query_of(started.location)
    assert {"state", "nonce", "code_challenge"} <= set(params)
    assert params["code_challenge_method"] == "S256"
    assert set(written(started)) >= ALL_CHECKS
    response = op.authorize(started.location).follow(pair.browser)
    assert_signed_in(pair, response)
    assert deleted_names(response) >= ALL_CHECKS
    assert not ALL_CHECKS & set(pair.browser.cookies())


def test_no_pkce_sends_no_verifier():
    op = FakeOP()
    pair = build(op, checks=["state"])
    started = start(pair.browser)
    assert "code_challenge" not in query_of(started.location)
    response = op.authorize(started.location).follow(pair.browser)
    assert_signed_in(pair, response)
    [token_request] = [r for r in op.requests if r.url == op.endpoint("token")]
    assert "code_verifier" not in dict(parse_qsl(token_request.body.decode()))


def test_form_post_callback():
    op = FakeOP()
    pair = build(
        op, checks=["nonce", "state"], authorization={"params": {"response_mode": "form_post"}}
    )
    started = start(pair.browser)
    for cookie in started.cookies:
        if cookie.name in ("authjs.state", "authjs.nonce"):
            assert cookie.options.same_site == "none"
            assert cookie.options.secure
    result = op.authorize(started.location)
    assert result.method == "POST"
    response = result.follow(pair.browser)
    assert_signed_in(pair, response)
    assert {"authjs.state", "authjs.nonce"} <= deleted_names(response)


def test_iss_parameter_when_advertised():
    op = FakeOP(iss_parameter=True)
    pair = build(op)
    assert_signed_in(pair, sign_in(pair.browser, op))


def test_kept_callback_url_through_the_redirect_callback():
    seen = []

    def redirect(url, base_url):
        seen.append(url)
        return url if url.startswith(base_url) else base_url

    op = FakeOP()
    pair = build(op, config={"callbacks": {"redirect": redirect}})
    response = sign_in(pair.browser, op, callbackUrl=f"{ORIGIN}/dashboard")
    assert_signed_in(pair, response, to=f"{ORIGIN}/dashboard")
    assert seen[-1] == f"{ORIGIN}/dashboard"  # the callback resolved the kept cookie


def test_discovery_is_cached_across_sign_ins():
    op = FakeOP()
    pair = build(op)
    assert_signed_in(pair, sign_in(pair.browser, op))
    second = pair.new_browser()
    response = sign_in(second, op)
    assert response.status == 302
    assert SESSION in written(response)
    assert op.count("discovery") == 1
    assert op.count("jwks") == 1


def test_request_query_reaches_the_authorization_url():
    op = FakeOP()
    pair = build(op, authorization={"params": {"prompt": "consent", "scope": "openid email"}})
    started = start(pair.browser, query="login_hint=ann&prompt=login&client_id=evil")
    params = query_of(started.location)
    assert params["login_hint"] == "ann"
    assert params["prompt"] == "login"  # the request wins over the provider's params
    assert params["scope"] == "openid email"
    assert params["client_id"] == CLIENT_ID  # ...but never over the protocol's own


# -- refusals: each ends on the error page, no session, no sign_in event --------------------------


def test_missing_state_cookie():
    op = FakeOP()
    pair = build(op, checks=["state"])
    started = start(pair.browser)
    del pair.browser.jar["authjs.state"]
    pair.performer.clear()
    response = op.authorize(started.location).follow(pair.browser)
    assert_failed(pair, response, because="state cookie was missing")
    assert op.count("token") == 0


def test_wrong_state():
    op = FakeOP()
    pair = build(op, checks=["state", "pkce"])

    def tamper(result: AuthorizationResult) -> None:
        result.params["state"] = result.params["state"][:-2] + "xx"

    response = sign_in(pair.browser, op, tamper=tamper)
    assert_failed(
        pair,
        response,
        checks={"authjs.state", "authjs.pkce.code_verifier"},
        because="`state` parameter",
    )
    assert op.count("token") == 0


def test_missing_state_parameter():
    op = FakeOP()
    pair = build(op, checks=["state"])
    response = sign_in(pair.browser, op, tamper=lambda r: r.params.pop("state"))
    assert_failed(pair, response, checks={"authjs.state"}, because="`state` parameter")


def test_check_cookie_of_another_provider_is_refused():
    op = FakeOP()
    pair = AuthPair.build(
        providers=[op.provider(), op.provider(id="other")], events={"sign_in": lambda **m: None}
    )
    op.connect(pair)
    started = start(pair.browser, "other")  # its checks are bound to "other"
    code = op.authorize(started.location).params["code"]
    pair.performer.clear()
    response = pair.browser.get(f"{ORIGIN}/auth/callback/op?code={code}")
    assert_failed(pair, response, checks=CHECKS, because="made for another provider")
    assert op.count("token") == 0


def test_replayed_code():
    op = FakeOP()
    pair = build(op)
    started = start(pair.browser)
    result = op.authorize(started.location)
    check_cookies = {k: v for k, v in pair.browser.jar.items() if k in CHECKS}
    assert_signed_in(pair, result.follow(pair.browser))
    pair.browser.jar.update(check_cookies)  # an attacker replays the whole callback
    del pair.browser.jar[SESSION]
    pair.performer.clear()
    response = result.follow(pair.browser)
    assert_failed(pair, response, checks=CHECKS, because="invalid_grant")
    assert op.count("token") == 2


def test_replayed_callback_without_cookies():
    op = FakeOP()
    pair = build(op)
    started = start(pair.browser)
    result = op.authorize(started.location)
    assert_signed_in(pair, result.follow(pair.browser))
    del pair.browser.jar[SESSION]
    pair.performer.clear()
    assert_failed(pair, result.follow(pair.browser), because="pkce cookie was missing")
    assert op.count("token") == 1


def test_iss_parameter_mismatch():
    op = FakeOP(iss_parameter=True)
    pair = build(op)

    def tamper(result: AuthorizationResult) -> None:
        result.params["iss"] = "https://evil.example"

    assert_failed(
        pair,
        sign_in(pair.browser, op, tamper=tamper),
        checks=CHECKS,
        because="`iss` parameter is not",
    )
    assert op.count("token") == 0


def test_iss_parameter_missing_when_advertised():
    op = FakeOP(iss_parameter=True)
    pair = build(op)
    assert_failed(
        pair,
        sign_in(pair.browser, op, tamper=lambda r: r.params.pop("iss")),
        because="requires an `iss` parameter",
    )


def test_discovery_issuer_mismatch():
    op = FakeOP(metadata={"issuer": "https://evil.example"})
    pair = build(op)
    started = start(pair.browser)
    assert_failed(pair, started, because="discovery document's issuer")
    assert not {c.name for c in started.cookies} & ALL_CHECKS


@pytest.mark.parametrize("endpoint", ["token", "jwks", "userinfo"])
def test_provider_500(endpoint):
    op = FakeOP(fail={endpoint: "500"})
    pair = build(op, id_token=False)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="HTTP 500")


@pytest.mark.parametrize("failure", ["timeout", "too-large"])
def test_transport_failure(failure):
    op = FakeOP(fail={"token": failure})
    pair = build(op)
    response = sign_in(pair.browser, op)
    assert_failed(
        pair, response, checks=CHECKS, because="request to https://op.example/token failed"
    )
    [log] = [entry for entry in pair.performer.logs if entry.level == "error"]
    assert log.code == "CallbackRouteError"
    assert "token" in log.message


@pytest.mark.parametrize("endpoint", ["token", "userinfo", "jwks"])
def test_invalid_json(endpoint):
    op = FakeOP(fail={endpoint: "invalid-json"})
    pair = build(op, id_token=False)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="JSON")


def test_token_error_in_a_200_body():
    op = FakeOP(fail={"token": "error-json"})
    pair = build(op)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="`server_error`")


@pytest.mark.parametrize("failure", ["500", "timeout", "invalid-json", "too-large"])
def test_discovery_down_at_sign_in(failure):
    op = FakeOP(fail={"discovery": failure})
    pair = build(op)
    response = start(pair.browser)
    assert_failed(pair, response)
    assert not {c.name for c in response.cookies} & ALL_CHECKS


def test_discovery_failure_is_not_cached():
    op = FakeOP(fail={"discovery": "500"})
    pair = build(op)
    assert_failed(pair, start(pair.browser), because="HTTP 500")
    op.fail.clear()
    pair.performer.clear()
    assert_signed_in(pair, sign_in(pair.browser, op))


def test_provider_error_response():
    op = FakeOP()
    pair = build(op, checks=["pkce", "state"])
    response = sign_in(pair.browser, op, error="access_denied")
    assert_failed(
        pair,
        response,
        "OAuthCallbackError",
        page="signin",
        checks={"authjs.state", "authjs.pkce.code_verifier"},
    )
    assert op.count("token") == 0
    page = pair.browser.get(urlsplit(response.location).path + "?error=OAuthCallbackError")
    assert b"Try signing in with a different account." in page.body


def test_provider_error_with_a_bad_state_is_a_state_failure():
    op = FakeOP()
    pair = build(op, checks=["state"])

    def tamper(result: AuthorizationResult) -> None:
        result.params["state"] = "forged"

    assert_failed(
        pair,
        sign_in(pair.browser, op, error="access_denied", tamper=tamper),
        because="`state` parameter",
    )


def test_no_action_reaches_the_network_without_the_engine():
    """Every outbound request is a SendHTTP action the binding performed."""
    op = FakeOP()
    pair = build(op)
    sign_in(pair.browser, op)
    sent = [a.request for a in pair.performer.actions if isinstance(a, SendHTTP)]
    assert sent == op.requests


def test_the_flow_is_deterministic():
    """Same clock, same entropy, same answers: the same actions and the same response."""
    runs = []
    for _ in range(2):
        op = FakeOP()
        pair = build(op, checks=["pkce", "state", "nonce"])
        response = sign_in(pair.browser, op)
        runs.append((op.requests, response, pair.performer.actions))
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] == runs[1][1]
    assert len(runs[0][2]) == len(runs[1][2])
