"""Passkeys through ``AiohttpAuth``'s routes on aiohttp's own server."""

from __future__ import annotations

import httpx
import pytest
from aiohttp import web

from io_bindings.aiohttp import AiohttpAuth
from tests.io_bindings.aiohttp.running import running
from tests.io_bindings.passkeys import check_passkey_round_trip, passkey_config

pytestmark = pytest.mark.e2e


def test_passkey_round_trip_through_adapter_b() -> None:
    b = AiohttpAuth(passkey_config(), env={})
    app = web.Application()
    app.add_routes(b.routes())
    with running(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        check_passkey_round_trip(http, "/api/auth")
