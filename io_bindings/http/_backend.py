"""The network backend: the little a loop library must provide to carry HTTP/1.1.

The client (h11, pooling, proxies, timeouts) is written once against these two
protocols; ``_anyio``, ``_asyncio`` and ``_trio`` implement them in a few lines.

Contract: network failures raise :class:`OSError` (TLS failures the
:class:`ssl.SSLError` subclass), a missed deadline raises :class:`TimeoutError`.
"""

from __future__ import annotations

import select
import ssl
from contextlib import AbstractAsyncContextManager
from typing import Protocol


class NetworkStream(Protocol):
    """A connected byte stream (plain TCP or TLS)."""

    async def send(self, data: bytes) -> None:
        """Send all of ``data``."""
        ...

    async def receive(self, max_bytes: int) -> bytes:
        """Up to ``max_bytes`` bytes; ``b""`` once the peer has closed."""
        ...

    async def start_tls(self, context: ssl.SSLContext, server_hostname: str) -> NetworkStream:
        """This stream wrapped in TLS (handshake done, certificate and host name checked)."""
        ...

    def is_readable(self) -> bool:
        """Whether data or EOF is waiting: an idle keep-alive connection then is unusable."""
        ...

    async def aclose(self) -> None:
        """Close at once (never blocks for long, never raises)."""
        ...


class NetworkBackend(Protocol):
    """Opens connections and bounds waits, on one event-loop library."""

    async def connect_tcp(self, host: str, port: int) -> NetworkStream:
        """A TCP connection to ``host``:``port`` (name resolved, IPv4/IPv6 raced)."""
        ...

    def fail_after(self, seconds: float) -> AbstractAsyncContextManager[object]:
        """An ``async with`` block that raises :class:`TimeoutError` after ``seconds``."""
        ...


class HasFileno(Protocol):
    """A socket-like object."""

    def fileno(self) -> int:
        """The file descriptor (negative once closed)."""
        ...


def socket_is_readable(sock: HasFileno | None) -> bool:
    """Whether ``sock`` has data or EOF waiting (a closed or missing socket counts as readable)."""
    if sock is None or sock.fileno() < 0:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)
