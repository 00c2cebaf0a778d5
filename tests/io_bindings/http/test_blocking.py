"""The h11 client's sync path: the blocking backend, run without an event loop."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from io_bindings.http import ReadTimeout, Timeouts
from io_bindings.http._blocking import run_blocking
from io_bindings.sync import BlockingHTTP
from sansio_auth.events import OutboundRequest

ANSWER = (
    b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"ok":true}'
)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        yield sock


def serve(listener: socket.socket, answer: bytes | None, connections: int = 1) -> list[bytes]:
    """Accept ``connections`` in a thread; answer each request (or stay silent)."""
    seen: list[bytes] = []

    def run() -> None:
        for _ in range(connections):
            conn, _ = listener.accept()
            with conn:
                while True:
                    data = conn.recv(65536)
                    if not data:
                        break
                    seen.append(data)
                    if answer is None:
                        conn.recv(1)  # silent until the client gives up
                        break
                    conn.sendall(answer)

    threading.Thread(target=run, daemon=True).start()
    return seen


def url(listener: socket.socket) -> str:
    return f"http://127.0.0.1:{listener.getsockname()[1]}/x"


def test_sends_and_reuses_the_connection(listener: socket.socket) -> None:
    seen = serve(listener, ANSWER)
    http = BlockingHTTP(env={})
    for _ in range(2):
        response = http.send(OutboundRequest(method="GET", url=url(listener)))
        assert (response.status, response.body) == (200, b'{"ok":true}')
    assert len(seen) == 2  # two requests over the one accepted connection
    assert http.client().idle_connections() == 1
    http.close()
    assert http.client().idle_connections() == 0


def test_a_silent_server_times_out(listener: socket.socket) -> None:
    serve(listener, None)
    http = BlockingHTTP(env={}, timeouts=Timeouts(read=0.2))
    with pytest.raises(ReadTimeout):
        http.send(OutboundRequest(method="GET", url=url(listener)))


def test_each_thread_has_its_own_client() -> None:
    http = BlockingHTTP(env={})
    clients = [http.client()]
    thread = threading.Thread(target=lambda: clients.append(http.client()))
    thread.start()
    thread.join()
    assert clients[0] is not clients[1]
    assert http.client() is clients[0]


def test_run_blocking_refuses_a_coroutine_that_suspends() -> None:
    async def suspends() -> None:
        import asyncio

        await asyncio.sleep(0)

    with pytest.raises(RuntimeError, match="suspended"):
        run_blocking(suspends())
