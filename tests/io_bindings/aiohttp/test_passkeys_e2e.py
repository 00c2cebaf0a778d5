"""Passkeys through ``AiohttpAuth``'s routes on aiohttp's own server."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from aiohttp import web

from io_bindings.aiohttp import AiohttpAuth
from sansio_auth.providers import Passkey
from tests.io_bindings.aiohttp.running import running
from tests.io_bindings.passkeys import (
    check_passkey_privacy_and_attestation,
    check_passkey_round_trip,
    passkey_config,
)

pytestmark = pytest.mark.e2e


def test_passkey_round_trip_through_adapter_b() -> None:
    b = AiohttpAuth(passkey_config(), env={})
    app = web.Application()
    app.add_routes(b.routes())
    with running(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        check_passkey_round_trip(http, "/api/auth")
        check_passkey_privacy_and_attestation(http, "/api/auth")


def test_auth_js_s_override_options_on_a_real_server() -> None:
    """``get_relaying_party`` (here: by the request's host) and per-ceremony options."""

    def by_host(request: Any) -> dict[str, str]:
        host = str(request.header("host")).split(":")[0]
        return {"id": host, "name": f"Shop at {host}", "origin": request.url.split("/api")[0]}

    provider = Passkey(
        get_relaying_party=by_host,
        registration_options={"timeout": 120000, "attestation_type": "direct"},
        authentication_options={"user_verification": "preferred"},
    )
    b = AiohttpAuth(passkey_config(providers=[provider]), env={})
    app = web.Application()
    app.add_routes(b.routes())
    with running(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        query = {"action": "register", "email": "ann@example.com"}
        registration = http.get("/api/auth/webauthn-options/passkey", params=query).json()
        assert registration["options"]["rp"] == {"name": "Shop at 127.0.0.1", "id": "127.0.0.1"}
        assert registration["options"]["timeout"] == 120000
        assert registration["options"]["attestation"] == "direct"
        authentication = http.get("/api/auth/webauthn-options/passkey").json()["options"]
        assert authentication["rpId"] == "127.0.0.1"
        assert authentication["userVerification"] == "preferred"
