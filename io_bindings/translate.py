"""Between web servers and the engine: the translation every binding and adapter shares.

A framework adapter builds the engine's :class:`~sansio_auth.Request` with
:func:`make_request` (or :func:`request_from_scope` for ASGI), caps bodies at
``max_body_size`` and headers at :class:`HeaderLimits` (431), answers a bad ``Host`` with
:data:`BAD_HOST`, and turns an unexpected failure into :func:`server_error`; nothing else
about requests is decided outside the engine.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from sansio_auth import Request, Response
from sansio_auth.events import escape_log_text
from sansio_auth.http import headers_from_pairs

from ._driver_io import traceback_text

Scope = MutableMapping[str, Any]
"""An ASGI connection scope."""
Message = MutableMapping[str, Any]
"""An ASGI message."""
Receive = Callable[[], Awaitable[Message]]
"""An ASGI ``receive`` callable."""
Send = Callable[[Message], Awaitable[None]]
"""An ASGI ``send`` callable."""
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
"""An ASGI application."""

DEFAULT_MAX_BODY_SIZE = 64 * 1024
"""Request bodies larger than this (bytes) are refused with 413."""
DEFAULT_MAX_HEADER_SIZE = 64 * 1024
"""Request headers larger than this in all (bytes of names and values) are refused with 431."""
DEFAULT_MAX_HEADERS = 100
"""Requests with more header lines than this are refused with 431 (Apache's default)."""

logger = logging.getLogger("sansio_auth")
"""The ``sansio_auth`` logger the bindings write the engine's log lines to."""


def plain(status: int, text: str) -> Response:
    """A short ``text/plain`` response."""
    return Response(status=status, headers=(("content-type", "text/plain"),), body=text.encode())


BAD_HOST = plain(400, "Bad Request: invalid Host header")
"""The answer to a request whose ``Host`` header is not a valid host (400)."""
BODY_TOO_LARGE = plain(413, "Request body too large")
"""The answer to a request body over the limit (413)."""
HEADERS_TOO_LARGE = plain(431, "Request Header Fields Too Large")
"""The answer to request headers over the limit (431)."""
NOT_FOUND = plain(404, "Not Found")
"""The answer to a request for no route (404)."""


class BadHost(ValueError):
    """The ``Host`` header (or the server address) does not make a valid URL."""


class HeaderLimits(NamedTuple):
    """How much header an auth route takes before the engine sees it; more is answered
    with :data:`HEADERS_TOO_LARGE` (431). Every binding checks the raw header lines it got
    from its server with :meth:`allow`."""

    max_size: int = DEFAULT_MAX_HEADER_SIZE
    """Bytes of all header names and values together."""
    max_count: int = DEFAULT_MAX_HEADERS
    """Header lines."""

    def allow(self, pairs: Iterable[tuple[str | bytes, str | bytes]]) -> bool:
        """Whether the header lines ``pairs`` are within the limits."""
        size = count = 0
        for name, value in pairs:  # the server holds them all already: no need to stop early
            size += len(name) + len(value)
            count += 1
        return count <= self.max_count and size <= self.max_size


DEFAULT_HEADER_LIMITS = HeaderLimits()
"""The header limits adapters apply unless told otherwise."""


def make_request(
    method: str,
    *,
    scheme: str,
    host: str,
    raw_path: str,
    query: str = "",
    headers: dict[str, str],
    body: bytes = b"",
    client: str | None = None,
    language: str | None = None,
) -> Request:
    """The engine's :class:`Request`; ``raw_path`` as it came on the wire (percent-encoded);
    ``client`` the peer's address as the server saw it; ``language`` the framework's active
    language (for the built-in pages), when it has one.

    Raises :class:`BadHost` when ``host`` does not make a valid URL.
    """
    origin = f"{scheme}://{host}"
    error = _origin_error(origin, host)
    if error is None and raw_path[:1] not in _NETLOC_ENDS:
        error = f"invalid host {host!r}"  # the path would run on into the host
    if error is not None:
        raise BadHost(error)
    url = origin + raw_path
    if query:
        url += "?" + query
    return Request(
        method=method, url=url, headers=headers, body=body, client=client, language=language
    )


_NETLOC_ENDS = ("", "/", "?", "#")


@lru_cache(maxsize=256)
def _origin_error(origin: str, host: str) -> str | None:
    """Why ``origin`` (``scheme://host``) is not a valid URL origin, or ``None``.

    Memoised: a server sees a handful of hosts; any other costs one parse, as before.
    """
    try:
        parts = urlsplit(origin)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError as err:
        return str(err)
    if not parts.hostname or parts.netloc != host or "@" in host or any(c.isspace() for c in host):
        return f"invalid host {host!r}"
    return None


def request_from_scope(scope: Scope, body: bytes) -> Request:
    """The engine's :class:`Request` for an ASGI HTTP scope (raises :class:`BadHost`)."""
    headers = headers_from_pairs(scope.get("headers", ()))
    host = headers.get("host")
    if not host:
        server = scope.get("server") or ("localhost", None)
        host = server[0] if server[1] in (None, 80, 443) else f"{server[0]}:{server[1]}"
    peer = scope.get("client")
    return make_request(
        scope["method"],
        scheme=scope.get("scheme", "http"),
        host=host,
        raw_path=asgi_raw_path(scope),
        query=scope.get("query_string", b"").decode("latin-1"),
        headers=headers,
        body=body,
        client=str(peer[0]) if peer else None,
    )


def asgi_raw_path(scope: Mapping[str, Any]) -> str:
    """The request path as sent (percent-encoded), falling back to the decoded ``path``."""
    raw: bytes | None = scope.get("raw_path")
    if raw:
        return raw.decode("latin-1")
    return str(scope.get("path", "/"))


def too_large(declared: str | bytes | None, limit: int) -> bool:
    """Whether a declared ``Content-Length`` is over ``limit``."""
    return (
        declared is not None and declared.isascii() and declared.isdigit() and int(declared) > limit
    )


async def read_asgi_body(scope: Scope, receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or ``None`` when it is over ``limit`` bytes."""
    declared = None
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            declared = value
    if too_large(declared, limit):
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


BODILESS = frozenset({"GET", "HEAD"})
"""The methods whose body no auth route reads."""


async def asgi_request(
    scope: Scope, receive: Receive, limit: int, header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS
) -> Request | Response:
    """The engine's request for an ASGI HTTP request, or the response refusing it: 431
    when its headers are over ``header_limits`` (its body is not read then), 413 when the
    body is over ``limit`` bytes, 400 for a bad ``Host``. The body of a ``GET`` or ``HEAD``
    is not read: no auth route reads one."""
    body = b""
    if scope["method"] not in BODILESS and header_limits.allow(scope.get("headers", ())):
        read = await read_asgi_body(scope, receive, limit)
        if read is None:
            return BODY_TOO_LARGE
        body = read
    return asgi_request_now(scope, header_limits, body)


def asgi_request_now(
    scope: Scope, header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS, body: bytes = b""
) -> Request | Response:
    """:func:`asgi_request` with its ``body`` read already (none for a ``GET`` or ``HEAD``,
    which a server can so answer without awaiting anything): 431, 400, or the request."""
    if not header_limits.allow(scope.get("headers", ())):
        return HEADERS_TOO_LARGE
    try:
        return request_from_scope(scope, body)
    except BadHost:
        return BAD_HOST


def server_error(where: str) -> Response:
    """Log the exception being handled (traceback in the server log only, escaped as every
    line of ours) and answer 500."""
    error = sys.exception()
    trace = "" if error is None else "\n" + traceback_text(error)
    logger.error("[auth][error] unexpected failure serving %s%s", escape_log_text(where), trace)
    return plain(500, "Internal Server Error")


def asgi_headers(response: Response) -> list[tuple[bytes, bytes]]:
    """The response's headers (``Set-Cookie`` included) as ASGI byte pairs."""
    headers = list(_encoded(response.headers))
    for cookie in response.cookies:
        headers.append((b"set-cookie", cookie.header_value().encode("latin-1")))
    return headers


@lru_cache(maxsize=256)
def _encoded(headers: tuple[tuple[str, str], ...]) -> tuple[tuple[bytes, bytes], ...]:
    """``headers`` as byte pairs. Memoised: most responses send one of a few header sets."""
    return tuple((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers)


async def send_asgi_response(send: Send, response: Response) -> None:
    """Send an engine :class:`Response` over ASGI."""
    headers = asgi_headers(response)
    headers.append((b"content-length", b"%d" % len(response.body)))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})


def closing_on_shutdown(receive: Receive, close: Callable[[], Awaitable[None]]) -> Receive:
    """``receive`` that runs ``close`` when the server announces its shutdown."""

    async def receive_then_close() -> Message:
        message = await receive()
        if message["type"] == "lifespan.shutdown":
            await close()
        return message

    return receive_then_close


async def serve_lifespan(receive: Receive, send: Send) -> None:
    """Answer the ASGI lifespan protocol for an app with nothing to start or stop."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
