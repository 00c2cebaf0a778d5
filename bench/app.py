"""The app both the in-process and the HTTP benchmarks run: one credentials provider."""

from __future__ import annotations

import os
import secrets
import time
from typing import Any

from io_bindings.anyio import AuthApp
from io_bindings.db._base import StoreAdapter
from sansio_auth import AuthConfig, jwt
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


def database_config(adapter: StoreAdapter, update_age: int = DEFAULT_UPDATE_AGE) -> AuthConfig:
    """Database sessions (an adapter makes them the default) behind one OAuth provider."""
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter,
        providers=[GitHub(client_id="bench", client_secret="bench")],
        session={"update_age": update_age},
    )


def create_database_app() -> AuthApp:
    """``uvicorn --factory bench.app:create_database_app``: database sessions in PostgreSQL
    (``BENCH_POSTGRES``, a DSN) or else in SQLite (``BENCH_SQLITE``, a file)."""
    adapter: StoreAdapter
    if dsn := os.environ.get("BENCH_POSTGRES"):
        from io_bindings.db.postgres import PostgresAdapter

        adapter = PostgresAdapter(dsn)
    else:
        from io_bindings.db.sqlite import SQLiteAdapter

        adapter = SQLiteAdapter(os.environ["BENCH_SQLITE"])
    return AuthApp(database_config(adapter), env={})
