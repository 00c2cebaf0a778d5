"""The client against a production server (uvicorn): keep-alive counted on the server side,
streamed (chunked) responses, request bodies."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn
from live_server import free_port

from io_bindings.http import HTTPClient
from sansio_auth.events import OutboundRequest

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
MakeClient = Callable[..., HTTPClient]


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers ``/peer`` with the client's address, ``/stream`` in three pieces, else echo."""
    assert scope["type"] == "http"
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope["path"] == "/stream":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for piece in (b"one,", b"two,", b"three"):
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    document = {"peer": scope["client"][1], "body": body.decode(), "method": scope["method"]}
    payload = json.dumps(document).encode()
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


@pytest.fixture(scope="module")
def uvicorn_url() -> Iterator[str]:
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


async def test_keep_alive_with_uvicorn(make_client: MakeClient, uvicorn_url: str) -> None:
    peers = set()
    async with make_client() as client:
        for index in range(4):
            method, body = ("POST", b"n=%d" % index) if index % 2 else ("GET", b"")
            request = OutboundRequest(method=method, url=f"{uvicorn_url}/peer", body=body)
            seen = json.loads((await client.send(request)).body)
            assert (seen["method"], seen["body"]) == (method, body.decode())
            peers.add(seen["peer"])
    assert len(peers) == 1


async def test_streamed_response_from_uvicorn(make_client: MakeClient, uvicorn_url: str) -> None:
    async with make_client() as client:
        response = await client.send(OutboundRequest(method="GET", url=f"{uvicorn_url}/stream"))
    assert response.headers["transfer-encoding"] == "chunked"
    assert response.body == b"one,two,three"
