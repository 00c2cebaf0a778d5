"""The audit's OAuth findings (issue 21), through the engine against the in-memory OP: state
when PKCE is not known to work, ``max_age`` and ``auth_time``, repeated parameters, a JARM
``response``, the provider's error text kept out of error-level logs, and the headers of a
callback's answer."""

from urllib.parse import urlencode

import pytest

from sansio_auth.errors import AuthError
from sansio_auth.events import Log
from tests.sansio_auth.driver import ORIGIN, query_of, written
from tests.sansio_auth.oauth.fake_op import (
    AuthorizationResult,
    FakeOP,
    assert_failed,
    assert_signed_in,
    build,
    sign_in,
    start,
)

PKCE = "authjs.pkce.code_verifier"
STATE = "authjs.state"
FORGED = "x\r\n[auth][error] FORGED"


# -- PKCE alone protects the callback only when the provider is known to enforce S256 ------------


@pytest.mark.parametrize(
    ("metadata", "state"),
    [
        ({"code_challenge_methods_supported": ["S256"]}, False),
        ({"code_challenge_methods_supported": ["S256", "plain"]}, False),
        ({"code_challenge_methods_supported": ["plain"]}, True),
        ({"code_challenge_methods_supported": []}, True),
        ({"code_challenge_methods_supported": None}, True),
    ],
)
def test_state_is_added_unless_discovery_lists_s256(metadata, state):
    """RFC 9700 §2.1.1: a client may rely on PKCE against forged callbacks only once it has
    made sure the server supports it; otherwise ``state`` does it."""
    op = FakeOP(metadata=metadata)
    pair = build(op, checks=["pkce"])
    started = start(pair.browser)
    params = query_of(started.location)
    assert params["code_challenge_method"] == "S256"
    assert ("state" in params) is state
    assert (STATE in written(started)) is state
    response = op.authorize(started.location).follow(pair.browser)
    assert_signed_in(pair, response)


def test_a_callback_without_the_state_is_refused_when_pkce_is_not_known_to_work():
    """The login CSRF of the audit: an OP that lists only ``plain`` (and ignores the verifier)
    takes the attacker's code with the victim's verifier; the state stops it."""
    op = FakeOP(metadata={"code_challenge_methods_supported": ["plain"]})
    pair = build(op, checks=["pkce"])
    response = sign_in(pair.browser, op, tamper=lambda result: result.params.pop("state"))
    assert_failed(pair, response, checks={PKCE, STATE}, because="`state` parameter")
    assert op.count("token") == 0


def test_an_oauth_provider_without_metadata_gets_a_state():
    """No discovery document (every endpoint configured): nothing says S256 is enforced."""
    op = FakeOP()
    pair = build(
        op,
        type="oauth",
        checks=["pkce"],
        authorization={"url": op.endpoint("authorize"), "params": {"scope": "openid"}},
        token=op.endpoint("token"),
        userinfo=op.endpoint("userinfo"),
        profile=lambda profile: {**profile, "id": profile["sub"]},
    )
    started = start(pair.browser)
    assert "state" in query_of(started.location)
    assert op.count("discovery") == 0
    response = op.authorize(started.location).follow(pair.browser)
    assert response.location == ORIGIN
    assert "authjs.session-token" in written(response)


def test_nonce_protects_an_oidc_callback_without_state():
    op = FakeOP(metadata={"code_challenge_methods_supported": ["plain"]})
    pair = build(op, checks=["pkce", "nonce"])
    started = start(pair.browser)
    assert "state" not in query_of(started.location)


# -- max_age and auth_time ------------------------------------------------------------------------


def test_max_age_sent_refuses_an_old_auth_time():
    op = FakeOP()
    pair = build(op, authorization={"params": {"max_age": 60}})
    op.claims["auth_time"] = int(pair.clock.now) - 3600
    response = sign_in(pair.browser, op)
    assert_failed(pair, response, checks={PKCE}, because="too long ago for `max_age`")


def test_max_age_sent_accepts_a_recent_auth_time():
    op = FakeOP()
    pair = build(op, authorization={"params": {"max_age": 60}})
    op.claims["auth_time"] = int(pair.clock.now) - 10
    assert_signed_in(pair, sign_in(pair.browser, op))


def test_max_age_sent_requires_auth_time():
    op = FakeOP()
    pair = build(op, authorization={"params": {"max_age": 60}})
    assert_failed(pair, sign_in(pair.browser, op), because="no `auth_time`")


def test_max_age_from_the_sign_in_query_is_kept_for_the_callback():
    """``signIn(id, {}, {max_age: 60})`` passes it in the sign-in request's query: the check
    cookies carry it to the callback."""
    op = FakeOP()
    pair = build(op)
    op.claims["auth_time"] = int(pair.clock.now) - 3600
    started = start(pair.browser, query="max_age=60")
    assert query_of(started.location)["max_age"] == "60"
    response = op.authorize(started.location).follow(pair.browser)
    assert_failed(pair, response, because="too long ago for `max_age`")


def test_a_non_numeric_auth_time_is_refused_without_max_age():
    op = FakeOP()
    pair = build(op)
    op.claims["auth_time"] = "x"
    assert_failed(pair, sign_in(pair.browser, op), because="`auth_time` is not a number")


# -- the authorization response's shape -----------------------------------------------------------


def deliver(pair, result: AuthorizationResult, pairs):
    """The callback with exactly the query ``pairs`` (repetitions kept)."""
    return pair.browser.get(f"{result.url}?{urlencode(pairs)}")


@pytest.mark.parametrize("name", ["state", "code", "iss"])
def test_a_repeated_parameter_is_refused(name):
    """RFC 6749 §3.1: a bad value first and the genuine one last must not sign in."""
    op = FakeOP(iss_parameter=True)
    pair = build(op, checks=["pkce", "state"])
    started = start(pair.browser)
    result = op.authorize(started.location)
    genuine = list(result.params.items())
    pairs = [(name, "forged"), *genuine]
    response = deliver(pair, result, pairs)
    assert_failed(pair, response, checks={PKCE, STATE}, because=f"more than once: `{name}`")
    assert op.count("token") == 0


def test_a_repeated_parameter_is_refused_in_a_form_post():
    op = FakeOP()
    pair = build(
        op, checks=["nonce", "state"], authorization={"params": {"response_mode": "form_post"}}
    )
    result = op.authorize(start(pair.browser).location)
    assert result.method == "POST"
    body = urlencode([("code", "forged"), *result.params.items()]).encode()
    headers = {"content-type": "application/x-www-form-urlencoded"}
    response = pair.browser.post(result.url, body=body, headers=headers)
    assert_failed(pair, response, because="more than once: `code`")


def test_a_jarm_response_is_refused():
    op = FakeOP()
    pair = build(op, checks=["pkce", "state"])
    result = op.authorize(start(pair.browser).location)
    response = deliver(pair, result, [*result.params.items(), ("response", "eyJhbGciOi.x.y")])
    assert_failed(pair, response, checks={PKCE, STATE}, because="JARM `response`")
    assert op.count("token") == 0


# -- what the provider's error text may reach -----------------------------------------------------


def test_the_error_description_is_logged_at_debug_only():
    op = FakeOP()
    pair = build(op, checks=["pkce", "state"], config={"debug": True})

    def deny(result: AuthorizationResult) -> None:
        result.params["error_description"] = FORGED

    response = sign_in(pair.browser, op, error="access_denied", tamper=deny)
    assert_failed(pair, response, "OAuthCallbackError", page="signin", checks={PKCE, STATE})
    [error] = [entry for entry in pair.performer.logs if entry.level == "warn"]
    assert str(error).startswith("[auth][warn] OAuthCallbackError: OAuth Provider returned")
    assert "FORGED" not in str(error)
    assert "access_denied" not in str(error)
    assert isinstance(error.error, AuthError)
    assert error.error.fault == "browser"  # no traceback
    [debug] = [
        e for e in pair.performer.logs if e.level == "debug" and e.code == "OAuthCallbackError"
    ]
    assert debug.metadata["error"] == "access_denied"
    assert debug.metadata["error_description"] == FORGED
    assert "\n" not in str(debug)
    assert "\\r\\n[auth][error] FORGED" in str(debug)


def test_a_forged_callback_is_the_browsers_fault():
    """Anything in the authorization response came through the browser: refusing it is
    logged as the browser's fault (one line, no traceback)."""
    op = FakeOP(iss_parameter=True)
    pair = build(op, checks=["pkce", "state"])

    def tamper(result: AuthorizationResult) -> None:
        result.params["iss"] = "https://evil.example"

    sign_in(pair.browser, op, tamper=tamper)
    [error] = [
        entry for entry in pair.performer.logs if isinstance(entry, Log) and entry.level == "warn"
    ]
    assert isinstance(error.error, AuthError)
    assert error.error.fault == "browser"


# -- the callback's headers -----------------------------------------------------------------------


def test_a_callback_sends_no_referrer_and_is_never_cached():
    op = FakeOP()
    pair = build(op)
    response = sign_in(pair.browser, op)
    assert_signed_in(pair, response)
    assert response.status == 302
    assert response.header("referrer-policy") == "no-referrer"
    assert "no-store" in (response.header("cache-control") or "")


def test_a_refused_callback_sends_no_referrer_either():
    op = FakeOP()
    pair = build(op, checks=["state"])
    response = sign_in(pair.browser, op, tamper=lambda result: result.params.pop("state"))
    assert response.header("referrer-policy") == "no-referrer"
