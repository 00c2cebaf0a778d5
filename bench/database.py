"""Database-session checks in process: ``GET session`` with a session-token cookie, the
session and user read from SQLite (a file) or PostgreSQL (a throw-away local cluster).

With the default ``update_age`` a check is one ``get_session_and_user``; with
``update_age=0`` every check also writes the extended expiry (``update_session``).
"""

from __future__ import annotations

import itertools
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio

from io_bindings.anyio import Auth
from io_bindings.db._base import StoreAdapter
from sansio_auth import AuthConfig
from sansio_auth.adapters import AdapterUser
from sansio_auth.providers import GitHub

from .app import SECRET, SESSION_COOKIE, USER
from .inprocess import checks_per_second

SESSION_TOKEN = "bench-database-session"
TEST_SUPPORT = Path(__file__).resolve().parents[1] / "tests" / "support"


def config(adapter: StoreAdapter, update_age: int) -> AuthConfig:
    """Database sessions (an adapter makes them the default) behind one OAuth provider."""
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter,
        providers=[GitHub(client_id="bench", client_secret="bench")],
        session={"update_age": update_age},
    )


async def _seed(adapter: StoreAdapter) -> datetime:
    user: AdapterUser = {"id": "", "email": USER["email"], "email_verified": None,
                         "name": USER["name"], "image": USER["picture"]}  # fmt: skip
    created = await adapter.create_user(user)
    expires = datetime.now(UTC) + timedelta(days=30)
    await adapter.create_session(
        {"session_token": SESSION_TOKEN, "user_id": created["id"], "expires": expires}
    )
    return expires


async def _run(adapter: StoreAdapter, update_age: int, seconds: float) -> float:
    async with adapter:
        expires = await _seed(adapter)
        auth = Auth(config(adapter, update_age), env={})
        if auth.settings.strategy != "database":
            raise RuntimeError("the benchmark must use database sessions")
        cookie = f"{SESSION_COOKIE}={SESSION_TOKEN}"
        rate = await checks_per_second(auth, cookie, seconds, reissued=update_age == 0)
        found = await adapter.get_session_and_user(SESSION_TOKEN)
        if found is None or (found["session"]["expires"] > expires) != (update_age == 0):
            raise RuntimeError(f"expected the session {'extended' if update_age == 0 else 'kept'}")
        return rate


def database_checks_per_second(
    make_adapter: Callable[[], StoreAdapter], update_age: int, seconds: float
) -> float:
    """Database-session checks per second on asyncio, on a fresh adapter's database."""
    return anyio.run(_run, make_adapter(), update_age, seconds)


@contextmanager
def sqlite_adapters() -> Iterator[Callable[[], StoreAdapter]]:
    """Makes SQLite adapters, each on a new file in a temporary directory."""
    from io_bindings.db.sqlite import SQLiteAdapter

    with tempfile.TemporaryDirectory(prefix="sansio-auth-bench-") as directory:
        numbers = itertools.count()
        yield lambda: SQLiteAdapter(Path(directory) / f"auth-{next(numbers)}.db")


@contextmanager
def postgres_adapters() -> Iterator[Callable[[], StoreAdapter]]:
    """Makes PostgreSQL adapters, each on a new database of a throw-away local cluster."""
    from io_bindings.db.postgres import PostgresAdapter

    sys.path.insert(0, str(TEST_SUPPORT))  # the tests' server starters, as pytest loads them
    from db_servers import postgres_cluster

    with postgres_cluster() as server:
        yield lambda: PostgresAdapter(server.create_database())
