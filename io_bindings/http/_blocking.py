"""The blocking network backend: plain sockets, no event loop; the client's sync path.

The client is written once, as coroutines, against :class:`NetworkBackend`. On these
streams no ``await`` ever suspends, so :func:`run_blocking` runs a coroutine to its end
in one ``send`` — the same client code (h11, pooling, proxies, timeouts) serves
synchronous callers. Deadlines (``fail_after``) become socket timeouts.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import AsyncIterator, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeVar

from ._backend import socket_is_readable

T = TypeVar("T")


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine``, which must never suspend (it awaits only blocking streams)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("a blocking-backend coroutine suspended: it awaited an event loop")


class _Deadlines(threading.local):
    def __init__(self) -> None:
        self.stack: list[float] = []

    def timeout(self) -> float | None:
        """Seconds to the nearest deadline (``TimeoutError`` when it has passed)."""
        if not self.stack:
            return None
        remaining = min(self.stack) - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed")
        return remaining


class BlockingStream:
    """A :class:`~io_bindings.http.NetworkStream` over a blocking socket."""

    def __init__(self, sock: socket.socket, deadlines: _Deadlines) -> None:
        self._sock = sock
        self._deadlines = deadlines

    async def send(self, data: bytes) -> None:
        self._sock.settimeout(self._deadlines.timeout())
        self._sock.sendall(data)

    async def receive(self, max_bytes: int) -> bytes:
        self._sock.settimeout(self._deadlines.timeout())
        return self._sock.recv(max_bytes)

    async def start_tls(self, context: ssl.SSLContext, server_hostname: str) -> BlockingStream:
        self._sock.settimeout(self._deadlines.timeout())
        return BlockingStream(
            context.wrap_socket(self._sock, server_hostname=server_hostname), self._deadlines
        )

    def is_readable(self) -> bool:
        return socket_is_readable(self._sock)

    async def aclose(self) -> None:
        self._sock.close()


class BlockingBackend:
    """Connections and timeouts on blocking sockets (for :func:`run_blocking`)."""

    def __init__(self) -> None:
        self._deadlines = _Deadlines()

    async def connect_tcp(self, host: str, port: int) -> BlockingStream:
        sock = socket.create_connection((host, port), timeout=self._deadlines.timeout())
        return BlockingStream(sock, self._deadlines)

    def fail_after(self, seconds: float) -> AbstractAsyncContextManager[object]:
        return self._fail_after(seconds)

    @asynccontextmanager
    async def _fail_after(self, seconds: float) -> AsyncIterator[None]:
        stack = self._deadlines.stack
        stack.append(time.monotonic() + seconds)
        try:
            yield
        finally:
            stack.pop()
