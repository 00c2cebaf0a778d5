"""A provider that stalls: the engine's outbound HTTP (the binding's client, on aiohttp's
loop) times out, and the browser gets the error page and no session."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from aiohttp import web

from io_bindings.aiohttp import AiohttpAuth
from io_bindings.http import AsyncioBackend, HTTPClient, Timeouts
from sansio_auth import AuthConfig
from tests.io_bindings.aiohttp.running import running
from tests.io_bindings.http.servers import Received, Reply, ScriptedServer

pytestmark = pytest.mark.e2e
STALL = 10.0
SHORT = Timeouts(connect=1.0, read=0.5, write=1.0, total=1.0)


def stall(request: Received) -> Reply:
    return Reply(stall=STALL)


@pytest.fixture(scope="module")
def provider() -> Iterator[ScriptedServer]:
    with ScriptedServer({"/.well-known/openid-configuration": stall}) as server:
        yield server


@pytest.fixture(scope="module")
def site(provider: ScriptedServer) -> Iterator[str]:
    oidc = {"id": "slow", "type": "oidc", "issuer": provider.url, "client_id": "c",
            "client_secret": "s"}  # fmt: skip
    config = AuthConfig(secret="timeout-test-secret-0123456789abcdef", trust_host=True,
                        providers=[oidc])  # fmt: skip
    transport = HTTPClient(AsyncioBackend(), timeouts=SHORT, proxy_env={})
    app = web.Application()
    app.add_routes(AiohttpAuth(config, transport=transport).routes())
    with running(app) as url:
        yield url


def test_a_stalled_provider_gives_the_error_page_and_no_session(
    site: str, provider: ScriptedServer
) -> None:
    with httpx.Client(base_url=site, timeout=15) as http:
        token = http.get("/api/auth/csrf").json()["csrfToken"]
        started = time.monotonic()
        response = http.post("/api/auth/signin/slow", data={"csrfToken": token})
        elapsed = time.monotonic() - started
        assert provider.received  # the engine did ask the provider
        assert elapsed < STALL / 2
        assert response.status_code == 302
        assert response.headers["location"] == f"{site}/api/auth/error?error=Configuration"
        error_page = http.get(response.headers["location"])
        assert error_page.status_code == 500
        assert "text/html" in error_page.headers["content-type"]
        assert "authjs.session-token" not in http.cookies
        assert http.get("/api/auth/session").json() is None
