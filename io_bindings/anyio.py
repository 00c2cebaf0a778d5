"""The anyio binding: runs the engine's flows on asyncio or trio, and serves them over ASGI.

>>> from io_bindings.anyio import AuthApp
>>> app = AuthApp(AuthConfig(providers=[...]))   # uvicorn module:app, or hypercorn -k trio
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

from sansio_auth import AuthConfig, Engine, NotAnAuthRoute, Request, Response
from sansio_auth.http import headers_from_pairs

from ._dispatch import Dispatcher, HTTPTransport
from .http import AnyioBackend, HTTPClient, NetworkBackend

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_BODY_SIZE = 64 * 1024
logger = logging.getLogger("sansio_auth")


def make_engine(config: AuthConfig, env: Mapping[str, str] | None = None) -> Engine:
    """An engine with the real clock and OS entropy; ``env`` defaults to ``os.environ``."""
    return Engine(
        config,
        clock=time.time,
        entropy=secrets.token_bytes,
        env=os.environ if env is None else env,
    )


class Auth:
    """The engine plus the anyio dispatcher: serve requests and read sessions.

    Outbound HTTP goes through ``transport``, by default an
    :class:`~io_bindings.http.HTTPClient` on :attr:`network_backend` (proxies read
    from ``env``); :meth:`aclose` closes that default client's connections.
    """

    network_backend: ClassVar[type[NetworkBackend]] = AnyioBackend
    """How the default HTTP client opens connections (the asyncio and trio bindings set it)."""

    def __init__(
        self,
        config: AuthConfig,
        *,
        env: Mapping[str, str] | None = None,
        transport: HTTPTransport | None = None,
    ) -> None:
        self.engine = make_engine(config, env)
        self.settings = self.engine.settings
        self.http_client: HTTPClient | None = None
        if transport is None:
            transport = self.http_client = HTTPClient(self.network_backend(), proxy_env=env)
        self.dispatcher = Dispatcher(self.settings, transport)
        for code in self.settings.warnings:
            logger.warning("[auth][warn][%s] Read more: https://warnings.authjs.dev", code)

    async def aclose(self) -> None:
        """Close the default HTTP client's idle connections (a given ``transport`` is yours)."""
        if self.http_client is not None:
            await self.http_client.aclose()

    async def respond(self, request: Request) -> Response | None:
        """The response to ``request``, or ``None`` when it is not an auth route."""
        flow = self.engine.handle(request)
        if isinstance(flow, NotAnAuthRoute):
            return None
        return await self.dispatcher.run(flow)

    async def session(self, origin: str, cookie: str | None) -> Any:
        """The session (what ``GET session`` answers) for a ``Cookie`` header, or ``None``."""
        request = Request(
            method="GET",
            url=f"{origin}{self.settings.base_path}/session",
            headers={"cookie": cookie} if cookie else {},
        )
        response = await self.respond(request)
        if response is None or response.status != 200:
            return None
        return response.json()


class AuthApp:
    """An ASGI app serving the auth routes under ``base_path``.

    Other paths go to ``app`` when given (so this can wrap your app), else 404.
    Request bodies over ``max_body_size`` bytes are refused with 413. The ASGI
    lifespan shutdown closes the HTTP client's connections.
    """

    auth_class: ClassVar[type[Auth]] = Auth
    """The :class:`Auth` made from the config (the asyncio and trio bindings set it)."""

    def __init__(
        self,
        config: AuthConfig,
        *,
        app: ASGIApp | None = None,
        env: Mapping[str, str] | None = None,
        transport: HTTPTransport | None = None,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
    ) -> None:
        self.auth = self.auth_class(config, env=env, transport=transport)
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            receive = _closing_on_shutdown(receive, self.auth.aclose)
            if self.app is None:
                await _lifespan(receive, send)
                return
        if scope["type"] != "http":
            if self.app is not None:
                await self.app(scope, receive, send)
            return
        base = self.auth.settings.base_path
        path = scope.get("path", "")
        if path != base and not path.startswith(base + "/"):
            if self.app is not None:
                await self.app(scope, receive, send)
            else:
                await _send_plain(send, 404, b"Not Found")
            return
        body = await _read_body(scope, receive, self.max_body_size)
        if body is None:
            await _send_plain(send, 413, b"Request body too large")
            return
        try:
            request = request_from_scope(scope, body)
        except ValueError:
            await _send_plain(send, 400, b"Bad Request: invalid Host header")
            return
        try:
            response = await self.auth.respond(request)
        except Exception:
            logger.exception("[auth][error] unexpected failure serving %s", path)
            response = Response(
                status=500, headers=(("content-type", "text/plain"),), body=b"Internal Server Error"
            )
        assert response is not None
        await send_response(send, response)


def request_from_scope(scope: Scope, body: bytes) -> Request:
    """The engine's :class:`Request` for an ASGI HTTP scope.

    Raises :class:`ValueError` when the ``Host`` header does not make a valid URL.
    """
    headers = headers_from_pairs(scope.get("headers", ()))
    scheme = scope.get("scheme", "http")
    host = headers.get("host")
    if not host:
        server = scope.get("server") or ("localhost", None)
        host = server[0] if server[1] in (None, 80, 443) else f"{server[0]}:{server[1]}"
    path = scope.get("raw_path") or scope.get("path", "/").encode()
    query = scope.get("query_string", b"")
    url = f"{scheme}://{host}{path.decode('latin-1')}"
    if query:
        url += "?" + query.decode("latin-1")
    urlsplit(url).port  # noqa: B018 - raises ValueError for a malformed host or port
    return Request(method=scope["method"], url=url, headers=headers, body=body)


async def _read_body(scope: Scope, receive: Receive, limit: int) -> bytes | None:
    declared = dict(scope.get("headers", ())).get(b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def send_response(send: Send, response: Response) -> None:
    """Send an engine :class:`Response` over ASGI."""
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.header_list()]
    headers.append((b"content-length", str(len(response.body)).encode()))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})


async def _send_plain(send: Send, status: int, body: bytes) -> None:
    await send_response(
        send, Response(status=status, headers=(("content-type", "text/plain"),), body=body)
    )


def _closing_on_shutdown(receive: Receive, close: Callable[[], Awaitable[None]]) -> Receive:
    """``receive`` that runs ``close`` when the server announces its shutdown."""

    async def receive_then_close() -> Message:
        message = await receive()
        if message["type"] == "lifespan.shutdown":
            await close()
        return message

    return receive_then_close


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
