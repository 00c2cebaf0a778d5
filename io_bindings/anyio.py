"""The anyio binding: runs the engine's flows on asyncio or trio, and serves them over ASGI.

>>> from io_bindings.anyio import AuthApp
>>> app = AuthApp(AuthConfig(providers=[...]))   # uvicorn module:app, or hypercorn -k trio
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

import msgspec

from sansio_auth import AuthConfig, Cookie, Engine, NotAnAuthRoute, Request, Response
from sansio_auth.drivers import async_performer
from sansio_auth.events import Action, Event, SendHTTP
from sansio_auth.oauth.cache import ProviderCache

from ._driver_io import HTTPTransport, log_writer
from ._single_flight import SingleFlight
from .http import AnyioBackend, AsyncioBackend, HTTPClient, NetworkBackend
from .translate import (
    DEFAULT_MAX_BODY_SIZE,
    NOT_FOUND,
    ASGIApp,
    Receive,
    Scope,
    Send,
    asgi_raw_path,
    asgi_request,
    closing_on_shutdown,
    request_from_scope,
    send_asgi_response,
    serve_lifespan,
    server_error,
)

__all__ = [
    "DEFAULT_MAX_BODY_SIZE",
    "AccessToken",
    "Auth",
    "AuthApp",
    "SessionRead",
    "request_from_scope",
]

logger = logging.getLogger("sansio_auth")
BackendName = Literal["anyio", "asyncio", "trio"]


def network_backend(backend: NetworkBackend | BackendName) -> NetworkBackend:
    """The HTTP client's network backend, given as one or by name."""
    if not isinstance(backend, str):
        return backend
    if backend == "anyio":
        return AnyioBackend()
    if backend == "asyncio":
        return AsyncioBackend()
    if backend == "trio":
        from .http._trio import TrioBackend  # imports trio: only when asked for

        return TrioBackend()
    raise ValueError(f"unknown network backend {backend!r} (anyio, asyncio or trio)")


class SessionRead(msgspec.Struct, frozen=True, kw_only=True):
    """A session read on the server side: what ``GET session`` answers, and the cookies
    the engine re-issued while reading it (a slid expiry, a refreshed token), which
    the response to the browser must carry to keep the session alive."""

    data: Any
    """The session mapping, or ``None`` when signed out."""
    cookies: tuple[Cookie, ...] = ()

    def set_cookie_headers(self) -> list[str]:
        """The ``Set-Cookie`` header values to add to the response."""
        return [cookie.header_value() for cookie in self.cookies]


class Auth:
    """The runtime: the engine, its clock, entropy, provider cache and HTTP transport.

    Every binding and framework adapter is built on one of these. ``clock`` and
    ``entropy`` default to the real ones (``time.time``, ``secrets.token_bytes``);
    give fixed ones and every flow is deterministic. ``env`` defaults to
    ``os.environ``. Outbound HTTP goes through ``transport``, by default an
    :class:`~io_bindings.http.HTTPClient` on ``backend`` (``"anyio"``,
    ``"asyncio"``, ``"trio"`` or a :class:`~io_bindings.http.NetworkBackend`);
    :meth:`aclose` closes that default client's connections.
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], bytes] = secrets.token_bytes,
        cache: ProviderCache | None = None,
        transport: HTTPTransport | None = None,
        env: Mapping[str, str] | None = None,
        backend: NetworkBackend | BackendName = "anyio",
    ) -> None:
        env = os.environ if env is None else env
        self.engine = Engine(config, clock=clock, entropy=entropy, env=env, cache=cache)
        self.settings = self.engine.settings
        self.http_client: HTTPClient | None = None
        if transport is None:
            transport = self.http_client = HTTPClient(network_backend(backend), proxy_env=env)
        self.transport = transport
        self._perform = async_performer(
            send_http=transport.send, log=log_writer(self.settings.debug)
        )
        self._single_flight = SingleFlight(clock)
        for code in self.settings.warnings:
            logger.warning("[auth][warn][%s] Read more: https://warnings.authjs.dev", code)

    async def aclose(self) -> None:
        """Close the default HTTP client's idle connections (a given ``transport`` is yours)."""
        if self.http_client is not None:
            await self.http_client.aclose()

    async def perform(self, action: Action) -> Event:
        """Perform one action (exceptions become :class:`~sansio_auth.events.Failed`);
        requests marked ``single_flight`` go one at a time per key, sharing the response."""
        if isinstance(action, SendHTTP) and action.single_flight is not None:
            return await self._single_flight.run(
                action.single_flight, lambda: self._perform(action)
            )
        return await self._perform(action)

    def serves(self, raw_path: str) -> bool:
        """Whether ``raw_path`` (percent-encoded, as sent) is an auth route."""
        return self.engine.serves(raw_path)

    async def respond(self, request: Request) -> Response | None:
        """The response to ``request``, or ``None`` when it is not an auth route."""
        flow = self.engine.handle(request)
        if isinstance(flow, NotAnAuthRoute):
            return None
        return await flow.run(self.perform)

    async def session(self, request: Request) -> SessionRead:
        """The session of the browser that sent ``request`` (any request: its cookies,
        origin and forwarding headers are used), with the cookies to set."""
        response = await self.respond(session_request(request, self.settings.base_path))
        return session_read(response)

    async def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> int:
        """End the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere"): database
        sessions are deleted (their number is returned), JWT sessions are refused from now on
        (``session={"revocation": True}``). Raises :class:`RuntimeError` naming the cause
        when they cannot be (no adapter, revocation off, the adapter failed)."""
        flow = self.engine.revoke_sessions(user_id=user_id, sid=sid)
        return revoked_count(await flow.run(self.perform))

    async def access_token(self, request: Request, *, provider: str) -> AccessToken:
        """The access token of ``provider`` for the session of ``request``, refreshed if
        due (concurrent refreshes of one token share one token-endpoint call)."""
        flow = self.engine.access_token(session_request(request, self.settings.base_path), provider)
        return access_token_of(await flow.run(self.perform))


class AccessToken(msgspec.Struct, frozen=True, kw_only=True):
    """A provider access token for the server to call the provider's API with, and the
    cookies the session read re-issued (a refreshed token is in the JWT session cookie:
    the response to the browser must carry them, or the rotated refresh token is lost)."""

    token: str | None
    """The valid access token, or ``None`` (signed out, no such provider, expired)."""
    cookies: tuple[Cookie, ...] = ()

    def set_cookie_headers(self) -> list[str]:
        """The ``Set-Cookie`` header values to add to the response."""
        return [cookie.header_value() for cookie in self.cookies]


_SESSION_HEADERS = frozenset({"cookie", "host", "x-forwarded-host", "x-forwarded-proto"})


def session_request(request: Request, base_path: str) -> Request:
    """The ``GET {base_path}/session`` request that reads the session of ``request``'s browser."""
    origin = request.url.split("/", 3)[:3]
    headers = {k: v for k, v in request.headers.items() if k in _SESSION_HEADERS}
    return Request(method="GET", url=f"{'/'.join(origin)}{base_path}/session", headers=headers)


def access_token_of(response: Response) -> AccessToken:
    """The :class:`AccessToken` of the engine's answer to an access-token flow."""
    token = response.json().get("access_token") if response.status == 200 else None
    return AccessToken(token=token, cookies=response.cookies)


def revoked_count(response: Response) -> int:
    """How many sessions the engine's revocation flow deleted; :class:`RuntimeError` naming
    the cause when it could not revoke."""
    if response.status != 200:
        raise RuntimeError(f"the sessions could not be revoked: {response.json()['message']}")
    return int(response.json()["deleted"])


def session_read(response: Response | None) -> SessionRead:
    """The :class:`SessionRead` of the answer to :func:`session_request`."""
    if response is None or response.status != 200:
        return SessionRead(data=None)
    return SessionRead(data=response.json(), cookies=response.cookies)


class AuthApp:
    """An ASGI app serving the auth routes under ``base_path``.

    Other paths go to ``app`` when given (so this can wrap your app), else 404.
    Request bodies over ``max_body_size`` bytes are refused with 413. The ASGI
    lifespan shutdown closes the HTTP client's connections. ``auth`` is the
    :class:`Auth` it serves: given, or made from ``config`` and ``runtime``
    (``clock=``, ``entropy=``, ``cache=``, ``transport=``, ``env=``, ``backend=``).
    """

    def __init__(
        self,
        config: AuthConfig | None = None,
        *,
        auth: Auth | None = None,
        app: ASGIApp | None = None,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        **runtime: Any,
    ) -> None:
        if (auth is None) == (config is None) or (auth is not None and runtime):
            raise TypeError("AuthApp takes a config (and runtime options), or an auth")
        self.auth = auth if auth is not None else Auth(config, **runtime)  # type: ignore[arg-type]
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            receive = closing_on_shutdown(receive, self.auth.aclose)
            if self.app is None:
                await serve_lifespan(receive, send)
                return
        if scope["type"] != "http" or not self.auth.serves(asgi_raw_path(scope)):
            if self.app is not None:
                await self.app(scope, receive, send)
            elif scope["type"] == "http":
                await send_asgi_response(send, NOT_FOUND)
            return
        await send_asgi_response(send, await self.serve(scope, receive))

    async def serve(self, scope: Scope, receive: Receive) -> Response:
        """The response to an auth route's ASGI request (never raises)."""
        request = await asgi_request(scope, receive, self.max_body_size)
        if isinstance(request, Response):
            return request
        try:
            response = await self.auth.respond(request)
        except Exception:
            return server_error(scope.get("path", ""))
        return response if response is not None else NOT_FOUND
