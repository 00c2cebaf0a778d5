"""``Depends(auth_result.current_user)``: the signed-in user as the store keeps it (an
instance of the SQLAlchemy model, another store's record), 401 signed out or once the store
no longer has the user, a clear error without a store; and the session's ``user.id`` it
comes from, on JWT and database sessions. In process, asyncio and trio."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import Depends, FastAPI

from io_bindings.db.sqlalchemy import SQLAlchemyAdapter
from io_bindings.db.sqlite import SQLiteAdapter
from io_bindings.starlette import HostAuthResult
from sansio_auth import AuthConfig
from sansio_auth.providers import Password
from tests.io_bindings.starlette.apps import client, host, make_config, sign_in_ann

pytestmark = pytest.mark.anyio
EMAIL, PASSWORD = "ada@example.com", "a long enough password 1"


def user_app(result: HostAuthResult) -> FastAPI:
    app = FastAPI()
    app.mount("/api/auth", result.handlers)
    app.add_middleware(result.middleware)

    @app.get("/me")
    async def me(user: Any = Depends(result.current_user)) -> Any:  # noqa: B008 - a local
        if isinstance(user, dict):
            return {"kind": "record", "id": user["id"], "email": user["email"]}
        return {"kind": type(user).__name__, "id": str(user.id), "email": user.email}

    return app


def store_config(adapter: Any, strategy: str, authorized: bool = False) -> AuthConfig:
    """``authorized``: the middleware reads the session for the callback first."""
    return AuthConfig(
        adapter=adapter,
        providers=[Password(send_email=lambda **_: None)],
        session={"strategy": strategy},
        callbacks={"authorized": lambda auth: True} if authorized else {},
    )


async def sign_in(http: httpx.AsyncClient) -> None:
    token = (await http.get("/api/auth/csrf")).json()["csrfToken"]
    form = {"csrfToken": token, "email": EMAIL, "password": PASSWORD}
    answer = await http.post("/api/auth/callback/password", data=form)
    assert answer.status_code == 302, answer.text
    assert "error" not in answer.headers["location"]


@pytest.mark.parametrize("authorized", [False, True])
@pytest.mark.parametrize("strategy", ["jwt", "database"])
@pytest.mark.parametrize("store", ["sqlalchemy", "sqlite"])
async def test_the_user_of_the_session_as_the_store_keeps_it(
    tmp_path: Path, store: str, strategy: str, authorized: bool
) -> None:
    if store == "sqlalchemy":
        adapter: Any = SQLAlchemyAdapter(f"sqlite:///{tmp_path}/auth.db", create_tables=True)
    else:
        adapter = SQLiteAdapter(str(tmp_path / "auth.db"))
    result = host(store_config(adapter, strategy, authorized))
    runtime = await result.auth.runtime()
    created = await runtime.create_password_user(EMAIL, PASSWORD, verified=True)
    try:
        async with client(user_app(result)) as http:
            assert (await http.get("/me")).status_code == 401
            await sign_in(http)
            session = (await http.get("/api/auth/session")).json()
            assert session["user"]["id"] == created["id"]  # by default, with a store
            me = (await http.get("/me")).json()
            kind = "User" if store == "sqlalchemy" else "record"  # the ORM model's instance
            assert me == {"kind": kind, "id": created["id"], "email": EMAIL}
            await adapter.delete_user(created["id"])
            assert (await http.get("/me")).status_code == 401
    finally:
        await adapter.aclose()


async def test_without_a_store_current_user_says_what_it_needs() -> None:
    result = host(make_config())
    async with client(user_app(result)) as http:
        await sign_in_ann(http)
        assert "id" not in (await http.get("/api/auth/session")).json()["user"]  # no store
        with pytest.raises(RuntimeError, match=r"AuthConfig\(adapter=\.\.\.\)"):
            await http.get("/me")


async def test_a_request_leaves_no_garbage_for_the_collector() -> None:
    """The request's auth state is kept in its scope without a reference back to it: when
    the request is over, everything it made is freed at once, not by the garbage collector
    (which would then run far more often under load). A signed-in request through the
    middleware and ``require_session`` leaves exactly what one without auth leaves."""
    result = host(make_config())
    app = FastAPI()
    app.mount("/api/auth", result.handlers)
    app.add_middleware(result.middleware)

    @app.get("/required")
    async def required(session: Any = Depends(result.require_session)) -> Any:  # noqa: B008
        return session

    @app.get("/plain")
    async def plain() -> Any:
        return {}

    async def garbage(path: str) -> int:
        gc.collect()
        gc.disable()
        try:
            for _ in range(20):
                assert (await http.get(path)).status_code == 200
            return gc.collect()
        finally:
            gc.enable()

    async with client(app) as http:
        await sign_in_ann(http)
        await garbage("/required")  # warm
        assert await garbage("/required") == await garbage("/plain")
