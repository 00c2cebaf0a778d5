"""Callbacks the app must refuse, with the real OP: a wrong or missing ``state``, a replayed
code, the provider's own error answer, and an RFC 9207 ``iss`` that is not the OP's. Each
ends on the error page (the sign-in page for ``OAuthCallbackError``), with no session
cookie, no ``sign_in`` event and the cause in the server log."""

from __future__ import annotations

import pytest

from tests.e2e_oauth.harness import (
    Browser,
    OAuthServer,
    assert_refused,
    assert_signed_in,
    browser,
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
        server, client, response, mark, error="OAuthCallbackError", cause="access_denied"
    )


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
