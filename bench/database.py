"""Database-session checks in process: ``GET session`` with a session-token cookie, the
session and user read from SQLite (a file) or PostgreSQL (a throw-away local cluster).

With the default ``update_age`` a check is one ``get_session_and_user``; with
``update_age=0`` every check also writes the extended expiry (``update_session``).
"""

from __future__ import annotations

import itertools
import tempfile
import time
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
from .goals import Goal, ratio
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


READ_ALONE = (
    "Session read alone (get_session_and_user), SQLAlchemy adapter against our psycopg adapter: "
    "in process on asyncio, one call after another, the same row of the same PostgreSQL "
    "database, alternating rounds, the best round; per second and µs each in this process's "
    "CPU time or in wall time (× = calls per second ÷ psycopg's, i.e. psycopg's µs ÷ this "
    "row's; target: SQLAlchemy's µs at most ×1.5 psycopg's)"
)
PSYCOPG = "psycopg (PostgresAdapter)"
VIA_SQLALCHEMY = "SQLAlchemy (SQLAlchemyAdapter, postgresql+psycopg)"


async def _reads_per_second(adapter: StoreAdapter, seconds: float) -> tuple[float, float]:
    """``get_session_and_user`` calls per second of this process's CPU time and of wall time,
    one call after another for ``seconds``."""
    calls, cpu, wall = 0, time.process_time(), time.perf_counter()
    end = wall + seconds
    while time.perf_counter() < end:
        for _ in range(100):
            if await adapter.get_session_and_user(SESSION_TOKEN) is None:
                raise RuntimeError("the bench session is not there")
        calls += 100
    return calls / (time.process_time() - cpu), calls / (time.perf_counter() - wall)


async def _alternating(
    adapters: dict[str, StoreAdapter], seconds: float, rounds: int
) -> dict[str, dict[str, list[float]]]:
    """Session checks per second through each adapter, then its reads alone (per CPU and
    per wall second), in ``rounds`` alternating rounds."""
    rates: dict[str, dict[str, list[float]]] = {
        name: {"checks": [], "cpu": [], "wall": []} for name in adapters
    }
    auths = {}
    for name, adapter in adapters.items():
        await adapter.open()
        auths[name] = Auth(database_config(adapter), env={})
    try:
        for _ in range(rounds):
            for name, auth in auths.items():
                rate = await checks_per_second(auth, SESSION_COOKIE_HEADER, seconds, reissued=False)
                rates[name]["checks"].append(rate)
                cpu, wall = await _reads_per_second(adapters[name], seconds)
                rates[name]["cpu"].append(cpu)
                rates[name]["wall"].append(wall)
    finally:
        for adapter in adapters.values():
            await adapter.aclose()
    return rates


def sqlalchemy_figures(server: PostgresServer, seconds: float, rounds: int) -> list[Figure]:
    """Our psycopg adapter and the SQLAlchemy adapter (its default models are the same
    tables) reading one session row of one database, alternating rounds: whole session
    checks, then the adapter's read alone."""
    from db_servers import sqlalchemy_url

    from io_bindings.db.postgres import PostgresAdapter
    from io_bindings.db.sqlalchemy import SQLAlchemyAdapter

    dsn = server.create_database()
    anyio.run(seed_once, PostgresAdapter(dsn))
    adapters: dict[str, StoreAdapter] = {
        PSYCOPG: PostgresAdapter(dsn),
        VIA_SQLALCHEMY: SQLAlchemyAdapter(sqlalchemy_url(dsn)),
    }
    rates = anyio.run(_alternating, adapters, seconds, rounds)
    server.drop_database(dsn)
    figures = [
        Figure.best(SQLALCHEMY, name, "per second", rates[name]["checks"],
                    max(rates[PSYCOPG]["checks"]))
        for name in adapters
    ]  # fmt: skip
    for measure, label in (("cpu", "CPU time"), ("wall", "wall time")):
        baseline = max(rates[PSYCOPG][measure])
        figures += [
            Figure.best(READ_ALONE, f"{name}, {label}", "per second", rates[name][measure],
                        baseline)
            for name in adapters
        ]  # fmt: skip
    return figures


def sqlalchemy_goal(figures: list[Figure]) -> Goal:
    """The SQLAlchemy adapter's session read against our psycopg adapter's, in CPU time per
    call (the note gives the wall-time ratio)."""
    reads = {f.row: f.per_second for f in figures if f.section == READ_ALONE}
    cpu = ratio(reads, f"{PSYCOPG}, CPU time", f"{VIA_SQLALCHEMY}, CPU time")
    wall = ratio(reads, f"{PSYCOPG}, wall time", f"{VIA_SQLALCHEMY}, wall time")
    return Goal(
        "SQLAlchemy ÷ PostgreSQL store session read (CPU µs per call)",
        cpu,
        1.5,
        at_most=True,
        note="" if wall is None else f"wall time per call ×{wall:.2f}",
    )


async def seed_once(adapter: StoreAdapter) -> None:
    """Open ``adapter``, :func:`seed` it, close it."""
    async with adapter:
        await seed(adapter)
