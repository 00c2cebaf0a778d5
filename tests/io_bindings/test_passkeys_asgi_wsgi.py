"""Passkeys through the ASGI ``AuthApp`` (asyncio and trio) and the WSGI ``AuthWSGI``."""

from __future__ import annotations

import warnings

import httpx
import pytest

from io_bindings.anyio import AuthApp
from io_bindings.wsgi import AuthWSGI
from tests.io_bindings.passkeys import (
    check_passkey_privacy_and_attestation,
    check_passkey_round_trip,
    passkey_config,
)

with warnings.catch_warnings():  # "install httpx2": the sync client that drives the examples
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_passkey_round_trip_through_auth_app(backend: str) -> None:
    app = AuthApp(passkey_config(), env={})
    with TestClient(app, backend=backend, follow_redirects=False) as http:
        check_passkey_round_trip(http, "/auth")
        check_passkey_privacy_and_attestation(http, "/auth")


def test_passkey_round_trip_through_auth_wsgi() -> None:
    transport = httpx.WSGITransport(app=AuthWSGI(passkey_config(), env={}))
    with httpx.Client(transport=transport, base_url="http://app.test") as http:
        check_passkey_round_trip(http, "/auth")
        check_passkey_privacy_and_attestation(http, "/auth")
