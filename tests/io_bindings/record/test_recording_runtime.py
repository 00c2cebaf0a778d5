"""What a recording runtime records: every request a server or ``respond`` asks it to
answer, whether the engine answered at once, drove a flow or found no auth route, and a
flow cut short."""

from __future__ import annotations

import io
import json
from typing import Any

import anyio
import httpx

from io_bindings.anyio import AuthApp
from io_bindings.record import Recorder, _current
from io_bindings.wsgi import AuthWSGI
from sansio_auth import AuthConfig, Request
from sansio_auth.providers import Credentials
from tests.io_bindings.record.memory import config
from tests.sansio_auth.driver import SECRET, Clock, seeded_entropy

BASE = "http://localhost"


def written(out: io.StringIO) -> list[tuple[str, int | None]]:
    """Each exchange written: the last segment of its URL and its status (``None``: none)."""
    exchanges = [json.loads(line) for line in out.getvalue().splitlines()]
    return [
        (
            exchange["request"]["url"].rsplit("/", 1)[1],
            None if exchange["response"] is None else exchange["response"]["status"],
        )
        for exchange in exchanges
    ]


def test_what_a_server_and_respond_are_asked_is_recorded() -> None:
    out = io.StringIO()
    auth = Recorder(out).auth(config(), clock=Clock(), entropy=seeded_entropy())

    async def browse() -> None:
        transport = httpx.ASGITransport(app=AuthApp(auth=auth))
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            assert (await client.get("/auth/session")).json() is None  # answered at once
            assert (await client.get("/auth/providers")).status_code == 200  # a flow
        assert await auth.respond(Request(method="GET", url=f"{BASE}/elsewhere")) is None

    anyio.run(browse)
    assert written(out) == [("session", 200), ("providers", 200), ("elsewhere", None)]
    assert json.loads(out.getvalue().splitlines()[0])["clock"]  # the read's clock is kept
    assert _current.get() is None


def test_the_wsgi_runtime_records_what_it_serves() -> None:
    out = io.StringIO()
    auth = Recorder(out).sync_auth(config(), clock=Clock(), entropy=seeded_entropy())
    transport = httpx.WSGITransport(app=AuthWSGI(auth=auth))
    with httpx.Client(transport=transport, base_url=BASE) as client:
        assert client.get("/auth/csrf").status_code == 200
        assert client.get("/auth/providers").status_code == 200
    assert written(out) == [("csrf", 200), ("providers", 200)]


def test_a_flow_cut_short_is_written_at_once_without_a_response() -> None:
    """A sign-in whose ``authorize`` never returns, cancelled: its exchange is written then,
    with no response, and the next request is an exchange of its own."""
    started = anyio.Event()

    async def authorize(credentials: dict[str, Any], request: Any) -> None:
        started.set()
        await anyio.sleep_forever()

    out = io.StringIO()
    provider = Credentials(authorize=authorize)
    auth = Recorder(out).auth(
        AuthConfig(secret=SECRET, trust_host=True, providers=[provider]),
        clock=Clock(),
        entropy=seeded_entropy(),
    )

    async def sign_in() -> None:
        transport = httpx.ASGITransport(app=AuthApp(auth=auth))
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            csrf = (await client.get("/auth/csrf")).json()["csrfToken"]
            form = {"csrfToken": csrf, "username": "ann", "password": "x"}

            async def post() -> None:
                await client.post("/auth/callback/credentials", data=form)

            async with anyio.create_task_group() as group:
                group.start_soon(post)
                await started.wait()
                assert written(out) == [("csrf", 200)]
                group.cancel_scope.cancel()
            assert written(out) == [("csrf", 200), ("credentials", None)]
            assert (await client.get("/auth/session")).json() is None

    anyio.run(sign_in)
    assert written(out)[2] == ("session", 200)
    assert _current.get() is None
