"""A token endpoint that fails (through the tampering proxy): HTTP 500, no answer within the
app's read timeout, a body over the HTTP client's size cap, invalid JSON. Each ends on the
error page with ``error=Configuration``, no session cookie, no ``sign_in`` event, and the
cause in the server log."""

from __future__ import annotations

import pytest

from tests.e2e_oauth.harness import Browser, OAuthServer, assert_refused
from tests.e2e_oauth.tampering_proxy import Tamper, TamperingProxy, TokenFault

pytestmark = pytest.mark.e2e

CAUSES: dict[TokenFault, str] = {
    "500": "the token endpoint answered HTTP 500",
    "stall": "ReadTimeout",
    "huge": "ResponseTooLarge",
    "invalid-json": "the token response is not a JSON object",
}


@pytest.mark.parametrize("fault", list(CAUSES))
def test_token_endpoint_fault(
    server: OAuthServer, client: Browser, proxy: TamperingProxy, fault: TokenFault
) -> None:
    answer = client.until_callback("tamper")
    proxy.tamper = Tamper(token_fault=fault)
    mark = server.mark()
    response = client.deliver(answer)
    assert_refused(server, client, response, mark, cause=CAUSES[fault])


def test_expires_in_null_is_refused(
    server: OAuthServer, client: Browser, proxy: TamperingProxy
) -> None:
    """A token response whose ``expires_in`` is ``null`` (not a number), as oauth4webapi."""
    answer = client.until_callback("tamper")
    proxy.tamper = Tamper(token_response={"expires_in": None})
    mark = server.mark()
    response = client.deliver(answer)
    assert_refused(server, client, response, mark, cause="`expires_in` is not a number")
