"""The asyncio network backend (standard library streams and ``asyncio.timeout``)."""

from __future__ import annotations

import asyncio
import ssl
from contextlib import AbstractAsyncContextManager


class AsyncioStream:
    """A :class:`~io_bindings.http.NetworkStream` over an asyncio reader/writer pair."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def send(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    async def receive(self, max_bytes: int) -> bytes:
        return await self._reader.read(max_bytes)

    async def start_tls(self, context: ssl.SSLContext, server_hostname: str) -> AsyncioStream:
        await self._writer.start_tls(context, server_hostname=server_hostname)
        return self

    def is_readable(self) -> bool:
        return self._reader.at_eof() or self._writer.is_closing()

    async def aclose(self) -> None:
        self._writer.close()
        self._writer.transport.abort()


class AsyncioBackend:
    """Connections and timeouts through asyncio."""

    async def connect_tcp(self, host: str, port: int) -> AsyncioStream:
        # Happy Eyeballs on the standard loop; uvloop's refuses the option (and has none).
        if isinstance(asyncio.get_running_loop(), asyncio.BaseEventLoop):
            reader, writer = await asyncio.open_connection(host, port, happy_eyeballs_delay=0.25)
        else:
            reader, writer = await asyncio.open_connection(host, port)
        return AsyncioStream(reader, writer)

    def fail_after(self, seconds: float) -> AbstractAsyncContextManager[object]:
        return asyncio.timeout(seconds)
