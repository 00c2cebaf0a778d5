"""``access_token`` and ``revoke_sessions`` of ``HostAuth``: in a request behind the
middleware (the context variable), with the request under ``@auth`` (FastAPI), a refreshed
token's re-issued session cookie reaching the response, ``None`` when signed out, and
``revoke_sessions`` ending a database session; on asyncio and trio."""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import pytest
from fastapi import FastAPI, Request
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request as StarletteRequest
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from io_bindings.db.memory import MemoryAdapter
from io_bindings.starlette import HostAuth, HostAuthResult
from tests.io_bindings.op_tokens import (
    OPTransport,
    check_access_token,
    check_revoke_sessions,
    make_config,
    make_op,
)

with warnings.catch_warnings():  # "install httpx2": the sync client that drives the examples
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

BACKENDS = ["asyncio", "trio"]


def starlette_app(result: HostAuthResult) -> Starlette:
    """Behind the middleware: ``await result.access_token(provider="op")``, no request."""

    async def token(request: StarletteRequest) -> JSONResponse:
        return JSONResponse({"token": await result.access_token(provider="op")})

    async def revoke(request: StarletteRequest) -> JSONResponse:
        user_id = (await request.json())["user_id"]
        return JSONResponse({"deleted": await result.revoke_sessions(user_id=user_id)})

    routes = [Route("/token", token), Route("/revoke", revoke, methods=["POST"]),
              Mount("/api/auth", app=result.handlers)]  # fmt: skip
    return Starlette(routes=routes, middleware=[Middleware(result.middleware)])


def fastapi_app(result: HostAuthResult) -> FastAPI:
    """No middleware: ``@auth`` puts the cookies on the response; the request is passed."""
    app = FastAPI()
    app.mount("/api/auth", result.handlers)

    @app.get("/token")
    @result.auth
    async def token(request: Request) -> JSONResponse:
        return JSONResponse({"token": await result.access_token(request, provider="op")})

    @app.post("/revoke")
    async def revoke(request: Request) -> Any:
        user_id = (await request.json())["user_id"]
        return {"deleted": await result.revoke_sessions(user_id=user_id)}  # the fixed config

    return app


APPS = {"starlette": starlette_app, "fastapi": fastapi_app}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", APPS)
@pytest.mark.parametrize("strategy", ["jwt", "database"])
def test_access_token_is_refreshed_and_its_cookie_sent(
    backend: str, kind: str, strategy: str
) -> None:
    op, clock = make_op()
    result = HostAuth(make_config(op, strategy), clock=clock, transport=OPTransport(op))
    app = APPS[kind](result)
    with TestClient(app, backend=backend, follow_redirects=False) as http:
        check_access_token(http, op, clock, jwt=strategy == "jwt")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", APPS)
def test_revoke_sessions_ends_a_database_session(backend: str, kind: str) -> None:
    op, clock = make_op()
    adapter = MemoryAdapter()
    config = make_config(op, "database", adapter=adapter)
    result = HostAuth(config, clock=clock, transport=OPTransport(op))
    with TestClient(APPS[kind](result), backend=backend, follow_redirects=False) as http:
        check_revoke_sessions(http, op, adapter)


def test_outside_a_request_a_config_function_needs_one() -> None:
    op, _ = make_op()
    config = make_config(op)
    result = HostAuth(lambda request: config)
    with pytest.raises(RuntimeError, match="pass the request"):
        anyio.run(lambda: result.revoke_sessions(user_id="u"))
    with pytest.raises(RuntimeError, match="no current request"):
        anyio.run(lambda: result.access_token(provider="op"))
