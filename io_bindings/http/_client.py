"""The HTTP client the bindings give the engine's driver: h11 over a network backend."""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from types import TracebackType
from urllib.parse import urlsplit

import h11
import msgspec

from sansio_auth.events import HTTPResponse, OutboundRequest

from ._anyio import AnyioBackend
from ._backend import NetworkBackend, NetworkStream
from ._connection import Connection, RawResponse, Timeouts
from ._errors import (
    ConnectError,
    ConnectTimeout,
    HTTPTimeout,
    InvalidRequest,
    NetworkError,
    ProtocolError,
    TLSError,
    TotalTimeout,
)
from ._proxy import Proxy, ProxySettings, open_tunnel

DEFAULT_MAX_RESPONSE_SIZE = 1024 * 1024
"""Bytes of a response body the client reads at most before failing the request."""
DEFAULT_USER_AGENT = "sansio-auth/0.1"
RETRYABLE_METHODS = frozenset({"GET", "HEAD"})


class Origin(msgspec.Struct, frozen=True):
    """Where a connection goes: the target origin and the proxy in between, if any."""

    scheme: str
    host: str
    port: int
    proxy: Proxy | None


class HTTPClient:
    """An HTTP/1.1 client with keep-alive pooling, TLS, proxies, timeouts and a size cap.

    It implements the runtime's ``HTTPTransport``: ``await client.send(request)``
    returns an :class:`~sansio_auth.events.HTTPResponse` (any status) or raises an
    :class:`~io_bindings.http.HTTPError`. Close it with ``await client.aclose()`` (or
    ``async with``) to drop the idle connections.

    * ``backend``: how connections are opened and waits bounded (anyio by default).
    * ``ssl_context``: defaults to :func:`ssl.create_default_context` (the system trust
      store, host name check); pass ``truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)``
      to use the OS's native verifier instead.
    * ``proxy_env``: where ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY``/``NO_PROXY`` are
      read (``os.environ`` by default, ``{}`` for no proxy).
    * ``max_idle_per_origin`` idle connections are kept per origin for
      ``keepalive_expiry`` seconds; an idle ``GET``/``HEAD`` connection the server
      closed in the meantime is retried once on a fresh connection.
    """

    def __init__(
        self,
        backend: NetworkBackend | None = None,
        *,
        timeouts: Timeouts | None = None,
        max_response_size: int = DEFAULT_MAX_RESPONSE_SIZE,
        ssl_context: ssl.SSLContext | None = None,
        proxy_env: Mapping[str, str] | None = None,
        max_idle_per_origin: int = 4,
        keepalive_expiry: float = 5.0,
        user_agent: str = DEFAULT_USER_AGENT,
    ) -> None:
        self.backend: NetworkBackend = backend if backend is not None else AnyioBackend()
        self.timeouts = timeouts if timeouts is not None else Timeouts()
        self.max_response_size = max_response_size
        self.user_agent = user_agent
        self.max_idle_per_origin = max_idle_per_origin
        self.keepalive_expiry = keepalive_expiry
        self._ssl_context = ssl_context
        self._proxies = ProxySettings(os.environ if proxy_env is None else proxy_env)
        self._idle: dict[Origin, list[Connection]] = {}

    @property
    def ssl_context(self) -> ssl.SSLContext:
        """The TLS settings used for ``https`` (created on first use)."""
        if self._ssl_context is None:
            context = ssl.create_default_context()
            context.set_alpn_protocols(["http/1.1"])
            self._ssl_context = context
        return self._ssl_context

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        """Send ``request`` and return the whole response."""
        origin, h11_request = self._prepare(request)
        try:
            async with self.backend.fail_after(self.timeouts.total):
                raw = await self._send_with_retry(origin, h11_request, request)
        except TimeoutError as err:
            if isinstance(err, HTTPTimeout):
                raise
            raise TotalTimeout(
                f"the exchange took over {self.timeouts.total}s", url=request.url
            ) from err
        headers: dict[str, str] = {}
        for name, value in raw.headers:
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        return HTTPResponse(status=raw.status, headers=headers, body=raw.body)

    async def aclose(self) -> None:
        """Close every idle connection (the client stays usable)."""
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                await connection.aclose()

    async def __aenter__(self) -> HTTPClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def idle_connections(self) -> int:
        """How many idle connections the pool holds."""
        return sum(len(connections) for connections in self._idle.values())

    def _prepare(self, request: OutboundRequest) -> tuple[Origin, h11.Request]:
        origin, host_header, target = self._route(request.url)
        headers = [(name.lower(), value) for name, value in request.headers]
        names = {name for name, _ in headers}
        if "host" not in names:
            headers.insert(0, ("host", host_header))
        if "user-agent" not in names:
            headers.append(("user-agent", self.user_agent))
        if "accept-encoding" not in names:
            headers.append(("accept-encoding", "gzip, deflate"))
        if request.body or request.method.upper() in ("POST", "PUT", "PATCH"):
            framing = ("content-length", "transfer-encoding")
            headers = [(k, v) for k, v in headers if k not in framing]
            headers.append(("content-length", str(len(request.body))))
        if origin.proxy is not None and origin.scheme == "http" and origin.proxy.authorization:
            headers.append(("proxy-authorization", origin.proxy.authorization))
        try:
            h11_request = h11.Request(method=request.method.upper(), target=target, headers=headers)
        except h11.LocalProtocolError as err:
            raise InvalidRequest(f"invalid request: {err}", url=request.url) from err
        return origin, h11_request

    def _route(self, url: str) -> tuple[Origin, str, str]:
        """The origin to connect to, the ``Host`` header and the request target for ``url``."""
        try:
            split = urlsplit(url)
            port = split.port
            host = (split.hostname or "").encode("idna").decode("ascii")
        except (ValueError, UnicodeError) as err:
            raise InvalidRequest(f"invalid URL: {err}", url=url) from err
        scheme = split.scheme.lower()
        if scheme not in ("http", "https") or not host:
            raise InvalidRequest("only absolute http:// and https:// URLs can be sent", url=url)
        default_port = 443 if scheme == "https" else 80
        port = port or default_port
        authority = f"[{host}]" if ":" in host else host
        if port != default_port:
            authority += f":{port}"
        target = (split.path or "/") + (f"?{split.query}" if split.query else "")
        proxy = self._proxies.proxy_for(scheme, host, port)
        if proxy is not None and scheme == "http":
            target = f"http://{authority}{target}"  # absolute form, for the proxy
        return Origin(scheme, host, port, proxy), authority, target

    async def _send_with_retry(
        self, origin: Origin, h11_request: h11.Request, request: OutboundRequest
    ) -> RawResponse:
        connection = await self._take_idle(origin)
        if connection is None:
            connection = await self._open(origin, request.url)
        try:
            return await self._exchange(origin, connection, h11_request, request)
        except (NetworkError, ProtocolError):
            stale = connection.completed > 0 and not connection.response_started
            if not (stale and h11_request.method.decode() in RETRYABLE_METHODS):
                raise
        connection = await self._open(origin, request.url)
        return await self._exchange(origin, connection, h11_request, request)

    async def _exchange(
        self,
        origin: Origin,
        connection: Connection,
        h11_request: h11.Request,
        request: OutboundRequest,
    ) -> RawResponse:
        try:
            raw = await connection.exchange(
                h11_request, request.body, max_size=self.max_response_size, url=request.url
            )
        except BaseException:
            await connection.aclose()
            raise
        if connection.ready_for_reuse():
            await self._keep(origin, connection)
        else:
            await connection.aclose()
        return raw

    async def _take_idle(self, origin: Origin) -> Connection | None:
        connections = self._idle.get(origin)
        while connections:
            connection = connections.pop()
            if not connection.is_stale(self.keepalive_expiry):
                return connection
            await connection.aclose()
        return None

    async def _keep(self, origin: Origin, connection: Connection) -> None:
        connections = self._idle.setdefault(origin, [])
        connections.append(connection)
        while len(connections) > self.max_idle_per_origin:
            await connections.pop(0).aclose()

    async def _open(self, origin: Origin, url: str) -> Connection:
        stream: NetworkStream | None = None
        proxy = origin.proxy
        try:
            async with self.backend.fail_after(self.timeouts.connect):
                if proxy is None:
                    stream = await self.backend.connect_tcp(origin.host, origin.port)
                else:
                    stream = await self.backend.connect_tcp(proxy.host, proxy.port)
                    if origin.scheme == "https":
                        await open_tunnel(stream, proxy, origin.host, origin.port)
                if origin.scheme == "https":
                    stream = await stream.start_tls(self.ssl_context, origin.host)
        except BaseException as err:
            if stream is not None:
                await stream.aclose()
            if isinstance(err, ConnectError):
                raise
            if isinstance(err, TimeoutError):
                message = f"connecting took over {self.timeouts.connect}s"
                raise ConnectTimeout(message, url=url) from err
            if isinstance(err, ssl.SSLError):
                raise TLSError(f"TLS handshake failed: {err}", url=url) from err
            if isinstance(err, OSError):
                raise ConnectError(f"cannot connect: {err}", url=url) from err
            raise
        return Connection(stream, self.backend, self.timeouts)
