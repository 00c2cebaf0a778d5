"""The anyio network backend (asyncio or trio underneath): the default."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager

import anyio
from anyio.abc import ByteStream, SocketAttribute
from anyio.streams.tls import TLSStream

from ._backend import socket_is_readable


@contextmanager
def _as_oserror() -> Iterator[None]:
    try:
        yield
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream) as err:
        if isinstance(err.__cause__, OSError):
            raise err.__cause__ from err
        raise ConnectionError(str(err) or type(err).__name__) from err


class AnyioStream:
    """A :class:`~io_bindings.http.NetworkStream` over an anyio byte stream."""

    def __init__(self, stream: ByteStream) -> None:
        self._stream = stream

    async def send(self, data: bytes) -> None:
        with _as_oserror():
            await self._stream.send(data)

    async def receive(self, max_bytes: int) -> bytes:
        try:
            with _as_oserror():
                return await self._stream.receive(max_bytes)
        except ConnectionError as err:
            if isinstance(err.__cause__, anyio.EndOfStream):  # the peer closed: EOF
                return b""
            raise

    async def start_tls(self, context: ssl.SSLContext, server_hostname: str) -> AnyioStream:
        with _as_oserror():
            tls = await TLSStream.wrap(
                self._stream,
                hostname=server_hostname,
                ssl_context=context,
                standard_compatible=False,
            )
        return AnyioStream(tls)

    def is_readable(self) -> bool:
        raw_socket = self._stream.extra(SocketAttribute.raw_socket, None)  # noqa: S610
        return socket_is_readable(raw_socket)

    async def aclose(self) -> None:
        await anyio.aclose_forcefully(self._stream)


class AnyioBackend:
    """Connections and timeouts through anyio."""

    async def connect_tcp(self, host: str, port: int) -> AnyioStream:
        return AnyioStream(await anyio.connect_tcp(host, port))

    def fail_after(self, seconds: float) -> AbstractAsyncContextManager[object]:
        return _fail_after(seconds)


@asynccontextmanager
async def _fail_after(seconds: float) -> AsyncIterator[None]:
    with anyio.fail_after(seconds):
        yield
