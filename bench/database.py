"""Database-session checks in process: ``GET session`` with a session-token cookie, the
session and user read from SQLite (a file) or PostgreSQL (a throw-away local cluster).

With the default ``update_age`` a check is one ``get_session_and_user``; with
``update_age=0`` every check also writes the extended expiry (``update_session``).
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from io_bindings.anyio import Auth
from io_bindings.db._base import StoreAdapter
from sansio_auth.adapters import AdapterUser

from .app import SESSION_COOKIE, USER, database_config
from .inprocess import checks_per_second
from .report import Figure

if TYPE_CHECKING:
    from db_servers import PostgresServer

SESSION_TOKEN = "bench-database-session"
SESSION_COOKIE_HEADER = f"{SESSION_COOKIE}={SESSION_TOKEN}"


async def seed(adapter: StoreAdapter) -> datetime:
    """Store the bench user and its session (token :data:`SESSION_TOKEN`); its expiry."""
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
        expires = await seed(adapter)
        auth = Auth(database_config(adapter, update_age), env={})
        if auth.settings.strategy != "database":
            raise RuntimeError("the benchmark must use database sessions")
        rate = await checks_per_second(
            auth, SESSION_COOKIE_HEADER, seconds, reissued=update_age == 0
        )
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
def postgres() -> Iterator[PostgresServer]:
    """A throw-away local PostgreSQL cluster (the tests' starter, as pytest loads it)."""
    from db_servers import postgres_cluster

    with postgres_cluster() as server:
        yield server


@contextmanager
def postgres_adapters(server: PostgresServer) -> Iterator[Callable[[], StoreAdapter]]:
    """Makes PostgreSQL adapters, each on a new database of ``server``."""
    from io_bindings.db.postgres import PostgresAdapter

    yield lambda: PostgresAdapter(server.create_database())


SQLALCHEMY = (
    "SQLAlchemy adapter against our psycopg adapter: database session check on PostgreSQL, "
    "in process, the same rows on the same server, alternating rounds (× = SQLAlchemy ÷ "
    "psycopg; target ×0.67 or more, i.e. within 1.5×)"
)


async def _alternating(
    adapters: dict[str, StoreAdapter], seconds: float, rounds: int
) -> dict[str, list[float]]:
    """Session checks per second through each adapter, in ``rounds`` alternating rounds."""
    rates: dict[str, list[float]] = {name: [] for name in adapters}
    auths = {}
    for name, adapter in adapters.items():
        await adapter.open()
        auths[name] = Auth(database_config(adapter), env={})
    try:
        for _ in range(rounds):
            for name, auth in auths.items():
                rate = await checks_per_second(auth, SESSION_COOKIE_HEADER, seconds, reissued=False)
                rates[name].append(rate)
    finally:
        for adapter in adapters.values():
            await adapter.aclose()
    return rates


def sqlalchemy_figures(server: PostgresServer, seconds: float, rounds: int) -> list[Figure]:
    """Our psycopg adapter and the SQLAlchemy adapter (its default models are the same
    tables) reading one session row of one database, alternating rounds."""
    from db_servers import sqlalchemy_url

    from io_bindings.db.postgres import PostgresAdapter
    from io_bindings.db.sqlalchemy import SQLAlchemyAdapter

    dsn = server.create_database()
    anyio.run(seed_once, PostgresAdapter(dsn))
    adapters: dict[str, StoreAdapter] = {
        "psycopg (PostgresAdapter)": PostgresAdapter(dsn),
        "SQLAlchemy (SQLAlchemyAdapter, postgresql+psycopg)": SQLAlchemyAdapter(
            sqlalchemy_url(dsn)
        ),
    }
    rates = anyio.run(_alternating, adapters, seconds, rounds)
    server.drop_database(dsn)
    psycopg, sqlalchemy = rates.values()
    baseline = max(psycopg)
    return [
        Figure.best(SQLALCHEMY, name, "per second", rounds_, baseline)
        for name, rounds_ in zip(adapters, (psycopg, sqlalchemy), strict=True)
    ]


async def seed_once(adapter: StoreAdapter) -> None:
    """Open ``adapter``, :func:`seed` it, close it."""
    async with adapter:
        await seed(adapter)
