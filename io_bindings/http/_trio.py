"""The trio network backend."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager

import trio

from ._backend import socket_is_readable


@contextmanager
def _as_oserror() -> Iterator[None]:
    try:
        yield
    except (trio.BrokenResourceError, trio.ClosedResourceError) as err:
        if isinstance(err.__cause__, OSError):  # trio wraps ssl.SSLError and socket errors
            raise err.__cause__ from err
        raise ConnectionError(str(err) or type(err).__name__) from err


class TrioStream:
    """A :class:`~io_bindings.http.NetworkStream` over a trio stream."""

    def __init__(self, stream: trio.SocketStream | trio.SSLStream[trio.SocketStream]) -> None:
        self._stream = stream

    async def send(self, data: bytes) -> None:
        with _as_oserror():
            await self._stream.send_all(data)

    async def receive(self, max_bytes: int) -> bytes:
        with _as_oserror():
            return bytes(await self._stream.receive_some(max_bytes))

    async def start_tls(self, context: ssl.SSLContext, server_hostname: str) -> TrioStream:
        if not isinstance(self._stream, trio.SocketStream):
            raise TypeError("TLS inside TLS is not supported")
        tls = trio.SSLStream(
            self._stream, context, server_hostname=server_hostname, https_compatible=True
        )
        with _as_oserror():
            await tls.do_handshake()
        return TrioStream(tls)

    def is_readable(self) -> bool:
        stream = self._stream
        raw = stream.transport_stream if isinstance(stream, trio.SSLStream) else stream
        return socket_is_readable(raw.socket)

    async def aclose(self) -> None:
        await trio.aclose_forcefully(self._stream)


class TrioBackend:
    """Connections and timeouts through trio."""

    async def connect_tcp(self, host: str, port: int) -> TrioStream:
        return TrioStream(await trio.open_tcp_stream(host, port))

    def fail_after(self, seconds: float) -> AbstractAsyncContextManager[object]:
        return _fail_after(seconds)


@asynccontextmanager
async def _fail_after(seconds: float) -> AsyncIterator[None]:
    try:
        with trio.fail_after(seconds):
            yield
    except trio.TooSlowError as err:
        raise TimeoutError from err
