"""Our tests' OpenID Provider: the kit's :class:`~sansio_auth.testing.MemoryOP` under its
old name, and the sign-in helpers and assertions our OAuth tests share.

>>> op = FakeOP(clock)
>>> pair = build(op)                              # one provider for ``op``, wired
>>> response = sign_in(pair.browser, op)          # POST signin, OP login, callback
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sansio_auth import Response
from sansio_auth.errors import fault_of
from sansio_auth.testing.op import (
    ALICE,
    CLIENT_ID,
    CLIENT_SECRET,
    ISSUER,
    AuthorizationResult,
    MemoryOP,
    b64url,
    ec_key,
    rsa_key,
)
from tests.sansio_auth.driver import ORIGIN, AuthPair, Browser, deleted_names, written

__all__ = [
    "ALICE",
    "CLIENT_ID",
    "CLIENT_SECRET",
    "ISSUER",
    "AuthorizationResult",
    "FakeOP",
    "assert_failed",
    "assert_signed_in",
    "b64url",
    "build",
    "ec_key",
    "rsa_key",
    "sign_in",
    "start",
]


class FakeOP(MemoryOP):
    """:class:`MemoryOP`, wired to an :class:`AuthPair` by :meth:`connect`."""

    def connect(self, pair: AuthPair) -> None:
        """Share ``pair``'s clock and answer its performer's HTTP requests."""
        self.clock = pair.clock
        pair.performer.http = self.handle


# -- driving a sign-in ---------------------------------------------------------------------------


def start(browser: Browser, provider_id: str = "op", query: str = "", **form: str) -> Response:
    """``POST signin/<id>`` with the CSRF token; the answer redirects to the OP."""
    fields = {"csrfToken": browser.csrf_token(), **form}
    path = f"{browser.base}/signin/{provider_id}" + (f"?{query}" if query else "")
    return browser.post(path, form=fields)


def sign_in(
    browser: Browser,
    op: MemoryOP,
    provider_id: str = "op",
    *,
    user: str = "alice",
    error: str | None = None,
    tamper: Callable[[AuthorizationResult], None] | None = None,
    **form: str,
) -> Response:
    """The whole round trip: start, the OP's login page, the callback. The callback's answer."""
    response = start(browser, provider_id, **form)
    assert response.status == 302, response
    assert response.location is not None
    result = op.authorize(response.location, user, error=error)
    if tamper is not None:
        tamper(result)
    return result.follow(browser)


def build(op: MemoryOP, *, config: Mapping[str, Any] | None = None, **provider: Any) -> AuthPair:
    """An engine with one provider for ``op`` (id ``op``), a ``sign_in`` event recorder, wired."""
    options = dict(config or {})
    options.setdefault("events", {"sign_in": lambda **message: None})
    pair = AuthPair.build(providers=[op.provider(**provider)], **options)
    op.connect(pair)
    return pair


def assert_signed_in(pair: AuthPair, response: Response, *, to: str = ORIGIN) -> Any:
    """Alice is signed in: session cookie, session, one ``sign_in`` event (returned)."""
    assert response.status == 302, response
    assert response.location == to
    assert "authjs.session-token" in written(response)
    session = pair.browser.session()
    assert session["user"] == {
        "name": "Alice Liddell",
        "email": "alice@example.com",
        "image": "https://op.example/alice.png",
    }
    [event] = pair.performer.emitted("sign_in")
    assert event["account"]["provider_account_id"] == "alice-sub"
    return event


def assert_failed(
    pair: AuthPair,
    response: Response,
    error: str = "Configuration",
    *,
    page: str = "error",
    checks: set[str] | frozenset[str] = frozenset(),
    browser: Browser | None = None,
    because: str | None = None,
) -> None:
    """The callback ended on ``page`` with ``error``: no session, no ``sign_in``, logged.

    ``checks`` are the check cookies the browser sent: each must be deleted;
    ``because`` is a piece of the logged error message (the reason it failed).
    """
    assert response.status == 302, response
    assert response.location == f"{ORIGIN}{pair.browser.base}/{page}?error={error}"
    assert not any(name.startswith("authjs.session-token") for name in written(response))
    jar = (browser or pair.browser).cookies()
    assert not any(name.startswith("authjs.session-token") for name in jar)
    assert pair.performer.emitted("sign_in") == []
    logged = [entry for entry in pair.performer.logs if entry.error is not None]
    assert logged, "the failure was not logged"
    for entry in logged:  # a refusal the browser caused is a warning, else an error
        assert entry.level == ("warn" if fault_of(entry.error) == "browser" else "error"), entry
    errors = [entry.message for entry in logged]
    if because is not None:
        assert any(because in message for message in errors), errors
    assert checks <= deleted_names(response)
