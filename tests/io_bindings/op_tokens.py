"""Shared by the adapters' ``access_token``/``revoke_sessions`` tests: an in-memory OP
(:class:`~sansio_auth.testing.MemoryOP`) behind an injected transport, a clock the tests
move past the access token's expiry, and the OAuth sign-in a browser makes.

Each adapter's test serves ``/token`` (its ``access_token`` helper's answer as JSON
``{"token": ...}``) and ``/revoke`` (``revoke_sessions(user_id=...)``, the count as
``{"deleted": n}``) and drives them with an ``httpx.Client`` (its cookie jar is the browser's).
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlencode

import httpx

from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.testing import Clock, MemoryOP

SECRET = "adapter-access-token-test-secret-0123456789"
SESSION_COOKIE = "authjs.session-token"
LIFETIME = 3600
"""``expires_in`` of MemoryOP's access tokens."""


class OPTransport:
    """The runtime's HTTP transport: every outbound request answered by ``op``."""

    def __init__(self, op: MemoryOP) -> None:
        self.op = op

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        return self.op.handle(request)


def make_op() -> tuple[MemoryOP, Clock]:
    """An OP and the shared clock (real time, so that the client's cookie jar keeps cookies)."""
    clock = Clock(time.time())
    op = MemoryOP()
    op.clock = clock
    return op, clock


def make_config(op: MemoryOP, strategy: str = "jwt", **options: Any) -> AuthConfig:
    """The OP as provider ``op``; the database strategy on a :class:`MemoryAdapter`."""
    if strategy == "database":
        options.setdefault("adapter", MemoryAdapter())
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        providers=[op.provider()],
        session={"strategy": strategy},
        **options,
    )


def sign_in(http: httpx.Client, op: MemoryOP, base: str = "/api/auth") -> None:
    """Sign in at the OP as its user, following the redirects by hand."""
    token = http.get(f"{base}/csrf").json()["csrfToken"]
    start = http.post(f"{base}/signin/op", data={"csrfToken": token, "callbackUrl": "/"})
    assert start.status_code in (302, 303), start.text
    result = op.authorize(start.headers["location"])
    back = http.get(f"{result.url}?{urlencode(result.params)}")
    assert back.status_code in (302, 303), back.text
    assert http.cookies.get(SESSION_COOKIE)


def session_cookies(response: httpx.Response) -> list[str]:
    """The response's ``Set-Cookie`` lines of the session cookie."""
    lines = response.headers.get_list("set-cookie")
    return [line for line in lines if line.startswith(f"{SESSION_COOKIE}=")]


def check_access_token(
    http: httpx.Client,
    op: MemoryOP,
    clock: Clock,
    path: str = "/token",
    *,
    jwt: bool = True,
    base: str = "/api/auth",
) -> None:
    """Signed out → ``None``; signed in → the token; expired → a refreshed one, and (JWT)
    its re-issued session cookie reaches the browser: the next read, past the runtime's
    single-flight window, needs no refresh (the old cookie's refresh token is revoked)."""
    assert http.get(path).json() == {"token": None}
    sign_in(http, op, base)
    first = http.get(path).json()["token"]
    assert first
    assert op.count("token") == 1
    clock.advance(LIFETIME)
    refreshed = http.get(path)
    token = refreshed.json()["token"]
    assert token
    assert token != first
    assert op.count("token") == 2
    if jwt:
        assert session_cookies(refreshed), refreshed.headers
    clock.advance(120)
    assert http.get(path).json()["token"] == token
    assert op.count("token") == 2


def check_revoke_sessions(
    http: httpx.Client, op: MemoryOP, adapter: MemoryAdapter, base: str = "/api/auth"
) -> None:
    """``revoke_sessions(user_id=...)`` deletes the database session: signed out after."""
    sign_in(http, op, base)
    assert http.get("/token").json()["token"]
    [user_id] = adapter.store.users
    assert http.post("/revoke", json={"user_id": user_id}).json() == {"deleted": 1}
    assert http.get("/token").json() == {"token": None}
