"""One request's auth state: its runtime, its session (read once, lazily), the cookies to
add to its response, and the context variable that makes them reachable from ``auth()``,
``sign_in`` and the other helpers."""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection

from sansio_auth import Cookie, Request
from sansio_auth.http import encode_uri_component, parse_cookie_header

from .. import anyio as _anyio
from ..translate import BadHost, Scope, request_from_scope

SCOPE_KEY = "sansio_auth.state"
"""Where a request's :class:`RequestState` is kept in its ASGI scope."""
_PASSED = frozenset({"host", "x-forwarded-host", "x-forwarded-proto", "referer"})
_UNREAD: Any = object()


class RequestState:
    """The auth state of one request (kept in its scope under :data:`SCOPE_KEY`)."""

    def __init__(self, scope: Scope, runtime: _anyio.Auth) -> None:
        self.scope = scope
        self.runtime = runtime
        self.cookies: list[Cookie] = []
        """Cookies to add to this request's response (a re-issued session, a sign-in's)."""
        self._session: Any = _UNREAD

    @property
    def connection(self) -> HTTPConnection:
        """The request, as Starlette sees it."""
        return HTTPConnection(self.scope)

    async def session(self) -> Any:
        """The session (a mapping, or ``None``), read once: later calls return the same."""
        if self._session is _UNREAD:
            try:
                read = await self.runtime.session(self.engine_request("GET", "/session"))
            except HTTPException:  # a bad Host: nobody is signed in
                read = _anyio.SessionRead(data=None)
            self._session = read.data
            self.add_cookies(read.cookies)
        return self._session

    async def access_token(self, provider: str) -> str | None:
        """The access token of ``provider`` for this request's session (refreshed if due),
        or ``None``; the re-issued session cookie goes on the response."""
        try:
            read = await self.runtime.access_token(
                self.engine_request("GET", "/session"), provider=provider
            )
        except HTTPException:  # a bad Host: nobody is signed in
            return None
        self.add_cookies(read.cookies)
        return read.token

    def forget_session(self, session: Any = _UNREAD) -> None:
        """The session changed (sign-in, sign-out, update): read it again, or take ``session``."""
        self._session = session

    def add_cookies(self, cookies: Iterable[Cookie]) -> None:
        """Cookies for the response (a later cookie of the same name replaces an earlier one)."""
        for cookie in cookies:
            self.cookies = [c for c in self.cookies if c.name != cookie.name]
            self.cookies.append(cookie)

    def take_cookies(self) -> list[Cookie]:
        """The cookies to set, once: whoever sends the response takes them."""
        cookies, self.cookies = self.cookies, []
        return cookies

    def engine_request(
        self,
        method: str,
        route: str,
        *,
        query: str = "",
        headers: dict[str, str] | None = None,
        body: bytes = b"",
    ) -> Request:
        """A request to ``<base_path><route>`` from this browser: its host, forwarding
        headers and cookies, with the cookies set during this request (a bad ``Host`` is
        an ``HTTPException`` 400)."""
        passed = [(k, v) for k, v in self.scope.get("headers", ()) if k.decode() in _PASSED]
        passed.append((b"cookie", self.cookie_header().encode("latin-1")))
        passed += [(k.encode(), v.encode("latin-1")) for k, v in (headers or {}).items()]
        path = f"{self.runtime.settings.base_path}{route}"
        scope = {**self.scope, "method": method, "path": path, "raw_path": path.encode(),
                 "query_string": query.encode(), "headers": passed}  # fmt: skip
        try:
            return request_from_scope(scope, body)
        except BadHost:
            raise HTTPException(400, "Bad Request: invalid Host header") from None

    def cookie_header(self) -> str:
        """The browser's ``Cookie`` header with this request's new cookies applied."""
        raw = dict(self.scope.get("headers", ())).get(b"cookie", b"").decode("latin-1")
        jar = parse_cookie_header(raw)
        for cookie in self.cookies:
            if cookie.value and cookie.options.max_age != 0:
                jar[cookie.name] = cookie.value
            else:
                jar.pop(cookie.name, None)
        return "; ".join(f"{name}={encode_uri_component(value)}" for name, value in jar.items())


def set_cookie_headers(cookies: Iterable[Cookie]) -> list[tuple[bytes, bytes]]:
    """ASGI ``Set-Cookie`` header pairs for ``cookies``."""
    return [(b"set-cookie", cookie.header_value().encode("latin-1")) for cookie in cookies]


class StateVar:
    """The context variable of one ``HostAuth``: the state of the request being served."""

    def __init__(self) -> None:
        self.var: ContextVar[RequestState | None] = ContextVar("sansio_auth_request", default=None)

    def get(self) -> RequestState:
        """The current request's state, or a ``RuntimeError`` outside a request."""
        state = self.var.get()
        if state is None:
            raise RuntimeError(
                "sansio-auth: no current request. Call this inside a request served behind "
                "`auth_result.middleware` (app.add_middleware), the `handlers`, or an endpoint "
                "decorated with `@auth`; or pass the request: `await auth(request)`."
            )
        return state
