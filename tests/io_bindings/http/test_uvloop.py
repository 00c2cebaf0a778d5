"""The asyncio backend on uvloop (the loop the ``[server]`` extra's uvicorn runs on), whose
``create_connection`` has no Happy Eyeballs option."""

from __future__ import annotations

import asyncio

import pytest

from io_bindings.http import AsyncioBackend

uvloop = pytest.importorskip("uvloop")


def test_the_asyncio_backend_connects_on_uvloop() -> None:
    async def main() -> bytes:
        async def greet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b"hello")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(greet, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port)
        try:
            return await stream.receive(16)
        finally:
            await stream.aclose()
            server.close()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        assert runner.run(main()) == b"hello"
