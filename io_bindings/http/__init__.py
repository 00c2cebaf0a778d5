"""The bindings' HTTP client: HTTP/1.1 (h11) over the event loop's own streams.

>>> client = HTTPClient()                        # anyio: runs on asyncio or trio
>>> client = HTTPClient(AsyncioBackend())        # asyncio's streams, no anyio
>>> response = await client.send(OutboundRequest(method="GET", url="https://op/.well-known/..."))
>>> await client.aclose()

Every failure raises an :class:`HTTPError` subclass; the driver hands it to
the engine as :class:`~sansio_auth.events.Failed`. A network backend
(:class:`NetworkBackend`) is all a loop library must provide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._anyio import AnyioBackend
from ._asyncio import AsyncioBackend
from ._backend import NetworkBackend, NetworkStream
from ._client import DEFAULT_MAX_RESPONSE_SIZE, HTTPClient
from ._connection import Timeouts
from ._errors import (
    ConnectError,
    ConnectTimeout,
    HTTPError,
    HTTPTimeout,
    InvalidRequest,
    NetworkError,
    ProtocolError,
    ProxyError,
    ReadTimeout,
    ResponseTooLarge,
    TLSError,
    TotalTimeout,
    WriteTimeout,
)

if TYPE_CHECKING:
    from ._trio import TrioBackend

__all__ = [
    "DEFAULT_MAX_RESPONSE_SIZE",
    "AnyioBackend",
    "AsyncioBackend",
    "ConnectError",
    "ConnectTimeout",
    "HTTPClient",
    "HTTPError",
    "HTTPTimeout",
    "InvalidRequest",
    "NetworkBackend",
    "NetworkError",
    "NetworkStream",
    "ProtocolError",
    "ProxyError",
    "ReadTimeout",
    "ResponseTooLarge",
    "TLSError",
    "Timeouts",
    "TotalTimeout",
    "TrioBackend",
    "WriteTimeout",
]


def __getattr__(name: str) -> Any:
    if name == "TrioBackend":  # imported on demand: asyncio users need not import trio
        from ._trio import TrioBackend

        return TrioBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
