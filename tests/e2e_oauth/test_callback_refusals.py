"""Callbacks the app must refuse, with the real OP: a wrong or missing ``state``, a replayed
code, the provider's own error answer, an RFC 9207 ``iss`` that is not the OP's, a
parameter sent twice, a JARM ``response``, and a missing ``state`` where PKCE is not known
to protect the callback. Each ends on the error page (the sign-in page for
``OAuthCallbackError``), with no session cookie, no ``sign_in`` event and the cause in the
server log; what the provider wrote never reaches an error line."""

from __future__ import annotations

import pytest

from tests.e2e_oauth.harness import (
    Browser,
    OAuthServer,
    assert_refused,
    assert_signed_in,
    browser,
    deliver_pairs,
    query,
    with_params,
)
from tests.e2e_oauth.tampering_proxy import TamperingProxy
from tests.oidc_op.provider import OpenIDProvider

pytestmark = pytest.mark.e2e


def test_wrong_state(
    server: OAuthServer, client: Browser, oidc_op: OpenIDProvider, proxy: TamperingProxy
) -> None:
    """Login CSRF: the attacker's own (genuine) authorization response, in the victim's browser."""
    client.start("op")  # the victim's state cookie
    with browser(server, oidc_op, proxy.url) as attacker:
        stolen = attacker.until_callback("op")
    mark = server.mark()
    response = client.deliver(stolen)
    assert_refused(server, client, response, mark, cause="the `state` parameter is missing")


def test_missing_state_cookie(server: OAuthServer, client: Browser) -> None:
    answer = client.until_callback("op")
    client.http.cookies.delete("authjs.state")
    mark = server.mark()
    response = client.deliver(answer)
    assert_refused(server, client, response, mark, cause="state cookie was missing")


def test_missing_state_parameter(server: OAuthServer, client: Browser) -> None:
    answer = client.until_callback("op")
    mark = server.mark()
    response = client.deliver(with_params(answer, state=None))
    assert_refused(server, client, response, mark, cause="the `state` parameter is missing")


def test_replayed_code(
    server: OAuthServer, client: Browser, oidc_op: OpenIDProvider, proxy: TamperingProxy
) -> None:
    """The same callback twice, the second time from a browser holding the same check cookies
    (a browser that still had its state cookie would not even reach the token endpoint)."""
    answer = client.until_callback("op")
    with browser(server, oidc_op, proxy.url) as replayer:
        client.copy_cookies_to(replayer)
        mark = server.mark()
        first = client.deliver(answer)
        assert_signed_in(server, client, first, mark, "op", name="Alice Liddell")
        mark = server.mark()
        replayed = replayer.deliver(answer)
        assert_refused(server, replayer, replayed, mark, cause="`invalid_grant`")


def test_provider_error_response(server: OAuthServer, client: Browser) -> None:
    """The user denies consent: the OP answers ``error=access_denied``."""
    answer = client.authorize("op", client.start("op"), deny=True)
    assert answer.params["error"] == "access_denied"
    mark = server.mark()
    response = client.deliver(answer)
    assert_refused(
        server,
        client,
        response,
        mark,
        error="OAuthCallbackError",
        cause="OAuthCallbackError: OAuth Provider returned an error",
    )


FORGED = "x\r\n[auth][error] FORGED"


def test_the_providers_error_text_never_forges_a_log_line(
    server: OAuthServer, client: Browser
) -> None:
    """``?error=access_denied&error_description=x%0D%0A[auth][error] FORGED``: one warning line
    naming the type, no provider text in it, no traceback (anyone can send this)."""
    answer = client.authorize("op", client.start("op"), deny=True)
    mark = server.mark()
    response = client.deliver(with_params(answer, error_description=FORGED))
    assert_refused(
        server, client, response, mark, error="OAuthCallbackError", cause="OAuthCallbackError"
    )
    log = server.log_since(mark)
    errors = [line for line in log.splitlines() if line.startswith("[auth][")]
    assert errors == [  # a refusal the user made (at the provider): a warning
        "[auth][warn] OAuthCallbackError: OAuth Provider returned an error. "
        "Read more at https://errors.authjs.dev#oauthcallbackerror"
    ]
    assert "FORGED" not in log
    assert "access_denied" not in log
    assert "Traceback" not in log


@pytest.mark.parametrize("name", ["state", "code", "iss"])
def test_a_parameter_sent_twice_is_refused(server: OAuthServer, client: Browser, name: str) -> None:
    """RFC 6749 §3.1: a forged value first and the genuine one last must not sign in."""
    answer = client.until_callback("op")
    mark = server.mark()
    pairs = [(name, "forged"), *answer.params.items()]
    response = deliver_pairs(client, answer, pairs)
    assert_refused(server, client, response, mark, cause=f"more than once: `{name}`")
    assert "Traceback" not in server.log_since(mark)


def test_a_jarm_response_is_refused(server: OAuthServer, client: Browser) -> None:
    """Beside a genuine code and state: this client never asks for JARM."""
    answer = client.until_callback("op")
    mark = server.mark()
    response = client.deliver(with_params(answer, response="eyJhbGciOiJSUzI1NiJ9.e30.sig"))
    assert_refused(server, client, response, mark, cause="a JARM `response` was sent")


def test_a_provider_listing_only_plain_pkce_gets_a_state_too(
    server: OAuthServer, client: Browser
) -> None:
    """RFC 9700 §2.1.1: discovery does not say S256 is enforced, so PKCE alone does not guard
    the callback: the request carries a ``state`` and a callback without it is refused."""
    authorization = client.start("pkce-plain")
    params = query(authorization)
    assert params["code_challenge_method"] == "S256"
    assert params["state"]
    assert client.cookie("authjs.state") is not None
    answer = client.authorize("pkce-plain", authorization)
    mark = server.mark()
    response = client.deliver(with_params(answer, state=None))
    assert_refused(server, client, response, mark, cause="the `state` parameter is missing")
    mark = server.mark()
    honest = client.sign_in("pkce-plain")
    assert_signed_in(server, client, honest, mark, "pkce-plain", name="Alice Liddell")


def test_a_callback_sends_no_referrer_and_is_not_stored(
    server: OAuthServer, client: Browser
) -> None:
    mark = server.mark()
    response = client.sign_in("op")
    assert_signed_in(server, client, response, mark, "op", name="Alice Liddell")
    assert response.headers["referrer-policy"] == "no-referrer"
    assert "no-store" in response.headers["cache-control"]
    refused = client.deliver(with_params(client.until_callback("op"), state=None))
    assert refused.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("iss", ["https://attacker.example", None], ids=["wrong", "missing"])
def test_authorization_response_iss_is_the_ops(
    server: OAuthServer, client: Browser, iss: str | None
) -> None:
    """RFC 9207: the OP advertises the ``iss`` parameter, so it must be there and be the OP's."""
    answer = client.until_callback("op")
    mark = server.mark()
    response = client.deliver(with_params(answer, iss=iss))
    cause = "not the provider's issuer" if iss else "requires an `iss` parameter"
    assert_refused(server, client, response, mark, cause=cause)
