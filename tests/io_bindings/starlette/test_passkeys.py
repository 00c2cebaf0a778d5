"""Passkeys through ``HostAuth``'s ``handlers`` (Starlette and FastAPI), on asyncio and trio."""

from __future__ import annotations

import warnings

import pytest
from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.routing import Mount

from io_bindings.starlette import HostAuth
from tests.io_bindings.passkeys import check_passkey_round_trip, passkey_config

with warnings.catch_warnings():  # "install httpx2": the sync client that drives the examples
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("kind", ["starlette", "fastapi"])
def test_passkey_round_trip_through_handlers(backend: str, kind: str) -> None:
    handlers = HostAuth(passkey_config(), env={}).handlers
    if kind == "starlette":
        app: Starlette = Starlette(routes=[Mount("/api/auth", app=handlers)])
    else:
        app = FastAPI()
        app.mount("/api/auth", handlers)
    with TestClient(app, backend=backend, follow_redirects=False) as http:
        check_passkey_round_trip(http, "/api/auth")
