"""The app both the in-process and the HTTP benchmarks run: one credentials provider."""

from __future__ import annotations

import os
import secrets
import time
from typing import Any

from io_bindings.anyio import AuthApp
from io_bindings.db._base import StoreAdapter
from io_bindings.translate import asgi_request, send_asgi_response
from sansio_auth import AuthConfig, Response, jwt
from sansio_auth.providers import Credentials, GitHub

SECRET = "bench-secret-0123456789abcdef0123456789abcdef"
SESSION_COOKIE = "authjs.session-token"
DEFAULT_UPDATE_AGE = 24 * 60 * 60
USER = {"name": "Bench User", "email": "bench@example.com", "picture": "https://example.com/b.png"}


def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Never used by the benchmark; a credentials provider makes the config realistic."""
    return None


def config(update_age: int = DEFAULT_UPDATE_AGE) -> AuthConfig:
    """The benchmarked configuration (no callbacks: the built-in session path)."""
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        providers=[Credentials(authorize=authorize, credentials={"username": {}, "password": {}})],
        session={"update_age": update_age},
        rate_limits={"enabled": False},  # a load generator signs in far past any limit
    )


def session_cookie() -> str:
    """A ``Cookie`` header with a fresh, valid session token for :data:`USER`."""
    token = jwt.encode(
        {**USER, "sub": "1"}, SECRET, SESSION_COOKIE, now=time.time(), entropy=secrets.token_bytes
    )
    return f"{SESSION_COOKIE}={token}"


def create_app() -> AuthApp:
    """``uvicorn --factory bench.app:create_app``; ``BENCH_UPDATE_AGE`` sets ``update_age``."""
    return AuthApp(config(int(os.environ.get("BENCH_UPDATE_AGE", DEFAULT_UPDATE_AGE))), env={})


def create_repeat_app() -> Any:
    """``uvicorn --factory bench.app:create_repeat_app``: :func:`create_app`, except that each
    auth request is answered ``BENCH_REPEAT`` times (the last answer is sent). The extra
    requests per second it costs is what one more engine pass costs while its code is hot;
    against the first pass it shows what a request pays for starting cold."""
    app, times = create_app(), int(os.environ.get("BENCH_REPEAT", "1"))

    async def repeat(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        request = await asgi_request(scope, receive, app.max_body_size)
        assert not isinstance(request, Response)
        for _ in range(times):
            response = await app.auth.respond(request)
        assert response is not None
        await send_asgi_response(send, response)

    return repeat


def database_config(adapter: StoreAdapter, update_age: int = DEFAULT_UPDATE_AGE) -> AuthConfig:
    """Database sessions (an adapter makes them the default) behind one OAuth provider."""
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter,
        providers=[GitHub(client_id="bench", client_secret="bench")],
        session={"update_age": update_age},
    )


def database_adapter() -> StoreAdapter:
    """The adapter the environment names: PostgreSQL (``BENCH_POSTGRES``, a DSN; with
    ``BENCH_PREPARE=0`` unprepared, as behind PgBouncer), SQLAlchemy (``BENCH_SQLALCHEMY``,
    a URL) or else SQLite (``BENCH_SQLITE``, a file)."""
    if url := os.environ.get("BENCH_SQLALCHEMY"):
        from io_bindings.db.sqlalchemy import SQLAlchemyAdapter

        return SQLAlchemyAdapter(url)
    if dsn := os.environ.get("BENCH_POSTGRES"):
        from io_bindings.db.postgres import PostgresAdapter

        return PostgresAdapter(dsn, prepare=os.environ.get("BENCH_PREPARE") != "0")
    from io_bindings.db.sqlite import SQLiteAdapter

    return SQLiteAdapter(os.environ["BENCH_SQLITE"])


def create_database_app() -> AuthApp:
    """``uvicorn --factory bench.app:create_database_app``: database sessions in the store
    of :func:`database_adapter`."""
    return AuthApp(database_config(database_adapter()), env={})
