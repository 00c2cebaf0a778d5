"""Checks every binding (anyio, asyncio, trio) must pass, run by each binding's test module.

Each check is an async function of the binding module; the caller runs it on the
binding's own loop (``asyncio.run`` or ``trio.run``), without anyio's test runner.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

from io_bindings.http import HTTPClient, ReadTimeout, Timeouts
from sansio_auth import AuthConfig
from sansio_auth.events import Failed, HTTPResponse, OutboundRequest, SendHTTP
from tests.io_bindings.http.servers import Reply, ScriptedServer, echo

SECRET = "binding-checks-secret-that-is-long-enough"
ROUTES = {"/echo": echo, "/stall": lambda request: Reply(stall=30)}
Message = dict[str, Any]


def config() -> AuthConfig:
    return AuthConfig(secret=SECRET, trust_host=True)


async def call_asgi(app: Any, scope: dict[str, Any], incoming: list[Message]) -> list[Message]:
    """Run ``app`` on ``scope``, feeding it ``incoming``; the messages it sent."""
    sent: list[Message] = []
    pending = list(incoming)

    async def receive() -> Message:
        return pending.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


async def serves_auth_routes(binding: ModuleType) -> None:
    """``GET /auth/csrf`` through the binding's ASGI app answers the CSRF token."""
    app = binding.AuthApp(config(), env={})
    scope = {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "path": "/auth/csrf",
        "raw_path": b"/auth/csrf",
        "query_string": b"",
        "headers": [(b"host", b"app.test")],
    }
    sent = await call_asgi(app, scope, [{"type": "http.request", "body": b""}])
    assert sent[0]["status"] == 200
    assert "csrfToken" in json.loads(sent[1]["body"])


async def decides_auth_routes_on_the_raw_path(binding: ModuleType) -> None:
    """A percent-encoded path is judged as sent (``/%61uth/csrf`` is not ``/auth/csrf``), by
    the engine's one check: the app behind gets it, and without one it is a 404, never a 500."""
    seen: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["path"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    scope = {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "path": "/auth/csrf",
        "raw_path": b"/%61uth/csrf",
        "query_string": b"",
        "headers": [(b"host", b"app.test")],
    }
    request = [{"type": "http.request", "body": b""}]
    alone = await call_asgi(binding.AuthApp(config(), env={}), scope, request)
    assert alone[0]["status"] == 404
    wrapping = await call_asgi(binding.AuthApp(config(), env={}, app=inner), scope, request)
    assert wrapping[0]["status"] == 204
    assert seen == ["/auth/csrf"]


async def sends_http_with_its_own_backend(binding: ModuleType, backend: type) -> None:
    """The default transport is an HTTPClient on the binding's backend; it reaches a server,
    keeps the connection, and a stalled server becomes ``Failed(ReadTimeout)``."""
    auth = binding.Auth(config(), env={})
    client = auth.http_client
    assert isinstance(client, HTTPClient)
    assert isinstance(client.backend, backend)
    client.timeouts = Timeouts(read=0.2)
    with ScriptedServer(ROUTES) as server:
        for _ in range(2):
            event = await auth.perform(
                SendHTTP(request=OutboundRequest(method="GET", url=f"{server.url}/echo"))
            )
            assert isinstance(event, HTTPResponse)
            assert event.status == 200
        assert server.connections == 1
        stalled = SendHTTP(request=OutboundRequest(method="GET", url=f"{server.url}/stall"))
        failed = await auth.perform(stalled)
        assert isinstance(failed, Failed)
        assert isinstance(failed.error, ReadTimeout)
        await auth.aclose()


async def lifespan_shutdown_closes_the_pool(binding: ModuleType) -> None:
    """ASGI lifespan shutdown closes idle connections, alone and when wrapping an app."""
    inner_saw: list[str] = []

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            inner_saw.append(message["type"])
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return

    lifespan = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    with ScriptedServer(ROUTES) as server:
        for wrapped in (None, inner):
            app = binding.AuthApp(config(), env={}, app=wrapped)
            await fetch(app.auth.perform, f"{server.url}/echo")
            assert app.auth.http_client.idle_connections() == 1
            sent = await call_asgi(app, {"type": "lifespan"}, lifespan)
            assert [m["type"] for m in sent] == [
                "lifespan.startup.complete",
                "lifespan.shutdown.complete",
            ]
            assert app.auth.http_client.idle_connections() == 0
    assert inner_saw == ["lifespan.startup", "lifespan.shutdown"]


async def fetch(perform: Callable[[SendHTTP], Awaitable[object]], url: str) -> None:
    event = await perform(SendHTTP(request=OutboundRequest(method="GET", url=url)))
    assert isinstance(event, HTTPResponse), event


CHECKS = [
    serves_auth_routes,
    decides_auth_routes_on_the_raw_path,
    lifespan_shutdown_closes_the_pool,
]
"""Checks that take only the binding module."""
