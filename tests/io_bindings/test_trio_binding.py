"""The trio binding, tested the way trio users test: pytest-trio runs each test
(``@pytest.mark.trio``), with its ``nursery`` fixture for servers the test starts itself."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import partial
from types import ModuleType
from typing import Any

import pytest
import trio

import io_bindings.trio as binding
from io_bindings.http import HTTPClient, TrioBackend
from sansio_auth.events import OutboundRequest
from tests.io_bindings import binding_checks

pytestmark = [pytest.mark.e2e, pytest.mark.trio]


@pytest.mark.parametrize("check", binding_checks.CHECKS, ids=lambda check: check.__name__)
async def test_binding_check(check: Callable[[ModuleType], Coroutine[Any, Any, None]]) -> None:
    await check(binding)


async def test_sends_http_on_trio_streams() -> None:
    await binding_checks.sends_http_with_its_own_backend(binding, TrioBackend)


async def test_the_client_reaches_a_trio_server_in_the_tests_nursery(
    nursery: trio.Nursery,
) -> None:
    """A trio server started in pytest-trio's ``nursery`` fixture, the client on the same
    loop: it keeps one connection for two requests; the nursery is cancelled at the end."""
    connections: list[int] = []

    async def serve(stream: trio.SocketStream) -> None:
        connections.append(1)
        buffer = b""
        while chunk := await stream.receive_some():
            buffer += chunk
            while b"\r\n\r\n" in buffer:
                _, buffer = buffer.split(b"\r\n\r\n", 1)
                await stream.send_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\ntrio!")

    listeners = await nursery.start(partial(trio.serve_tcp, serve, 0, host="127.0.0.1"))
    port = listeners[0].socket.getsockname()[1]
    client = HTTPClient(TrioBackend(), proxy_env={})
    for _ in range(2):
        response = await client.send(OutboundRequest(method="GET", url=f"http://127.0.0.1:{port}/"))
        assert (response.status, response.body) == (200, b"trio!")
    assert connections == [1]
    await client.aclose()
