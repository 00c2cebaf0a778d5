"""aiohttp's ``access_token`` and ``revoke_sessions`` on aiohttp's own server: a refreshed
token with its re-issued session cookie on the response, ``None`` when signed out, and
``revoke_sessions`` ending a database session."""

from __future__ import annotations

import httpx
import pytest
from aiohttp import web

from io_bindings.aiohttp import AiohttpAuth, access_token, send_session_cookies
from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig
from tests.io_bindings.aiohttp.running import running
from tests.io_bindings.op_tokens import (
    LIFETIME,
    OPTransport,
    check_access_token,
    check_revoke_sessions,
    make_config,
    make_op,
    session_cookies,
    sign_in,
)

pytestmark = pytest.mark.e2e


def make_app(b: AiohttpAuth, config: AuthConfig) -> web.Application:
    """``/token`` by the method, ``/protected/token`` behind ``protect`` (no
    ``send_session_cookies`` needed there), ``/module/token`` by the module-level helper."""

    async def token(request: web.Request) -> web.Response:
        return web.json_response({"token": await b.access_token(request, provider="op")})

    async def module_token(request: web.Request) -> web.Response:
        return web.json_response({"token": await access_token(request, config, provider="op")})

    async def revoke(request: web.Request) -> web.Response:
        user_id = (await request.json())["user_id"]
        return web.json_response({"deleted": await b.revoke_sessions(user_id=user_id)})

    app = web.Application()
    app.add_routes([*b.routes(), web.get("/token", token), web.get("/module/token", module_token),
                    web.post("/revoke", revoke)])  # fmt: skip
    app.on_response_prepare.append(send_session_cookies)
    return app


@pytest.mark.parametrize("strategy", ["jwt", "database"])
@pytest.mark.parametrize("path", ["/token", "/module/token"])
def test_access_token_is_refreshed_and_its_cookie_sent(strategy: str, path: str) -> None:
    op, clock = make_op()
    config = make_config(op, strategy)
    b = AiohttpAuth(config, clock=clock, transport=OPTransport(op))
    with running(make_app(b, config)) as url, httpx.Client(base_url=url, timeout=10) as http:
        check_access_token(http, op, clock, path, jwt=strategy == "jwt")


def test_protect_sends_the_refreshed_cookie() -> None:
    """Behind ``protect`` (no ``send_session_cookies`` hook) the cookie still goes out."""
    op, clock = make_op()
    config = make_config(op)
    b = AiohttpAuth(config, clock=clock, transport=OPTransport(op))

    async def token(request: web.Request) -> web.Response:
        return web.json_response({"token": await b.access_token(request, provider="op")})

    app = web.Application(middlewares=[b.protect(["/token"])])
    app.add_routes([*b.routes(), web.get("/token", token)])
    with running(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        assert http.get("/token").status_code == 302  # signed out: protected
        sign_in(http, op)
        first = http.get("/token").json()["token"]
        clock.advance(LIFETIME)
        refreshed = http.get("/token")
        assert refreshed.json()["token"] not in (None, first)
        assert session_cookies(refreshed)


def test_revoke_sessions_ends_a_database_session() -> None:
    op, clock = make_op()
    adapter = MemoryAdapter()
    config = make_config(op, "database", adapter=adapter)
    b = AiohttpAuth(config, clock=clock, transport=OPTransport(op))
    with running(make_app(b, config)) as url, httpx.Client(base_url=url, timeout=10) as http:
        check_revoke_sessions(http, op, adapter)
