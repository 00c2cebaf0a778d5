"""Calls a deadline cancels while their query waits on a lock, on PostgreSQL: the query is
cancelled in the server, its transaction rolled back whole, its connection given back (the
pools' bounds hold), and nothing is logged as an error.

Each store runs on asyncio and on trio: the PostgreSQL store's session check runs on its
async connections on asyncio and in worker threads on trio; SQLAlchemy's on its asyncio
engine (the driver's connection, or SQLAlchemy's own execution when the engine has
execution events) on asyncio and in worker threads on trio.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import create_async_engine

from io_bindings._deadlines import CUT, within
from io_bindings.db._base import StoreAdapter
from io_bindings.db.postgres import PostgresAdapter
from io_bindings.db.sqlalchemy import SQLAlchemyAdapter
from tests.io_bindings.db.conftest import sqlalchemy_url

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

POOL = 10
CHECKS = 40
NOW = datetime.now(UTC).replace(microsecond=0)
KINDS = ["postgres", "sqlalchemy", "sqlalchemy-traced"]


@pytest.fixture(params=KINDS)
def make_adapter(
    request: pytest.FixtureRequest, postgres_dsn: str, tmp_path: Path, anyio_backend: str
) -> Callable[[], StoreAdapter]:
    kind = str(request.param)
    if kind == "postgres":
        return lambda: PostgresAdapter(postgres_dsn, max_size=POOL)
    url = sqlalchemy_url("postgres", request, tmp_path)
    if kind == "sqlalchemy":
        return lambda: SQLAlchemyAdapter(url, create_tables=True, pool_size=POOL)
    if anyio_backend != "asyncio":
        pytest.skip("an asyncio engine is used on asyncio only")

    def traced() -> StoreAdapter:  # execution events: SQLAlchemy's own execution path
        engine = create_async_engine(url, pool_size=POOL, max_overflow=0)
        event.listen(engine.sync_engine, "before_cursor_execute", lambda *args: None)
        return SQLAlchemyAdapter(url, create_tables=True, pool_size=POOL, async_engine=engine)

    return traced


@contextmanager
def locked(dsn: str, table: str) -> Iterator[None]:
    """``table`` locked by another connection (no one reads or writes it) until the end."""
    with psycopg.connect(dsn) as locker:
        locker.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")  # type: ignore[arg-type]
        try:
            yield
        finally:
            locker.rollback()


def server_connections(dsn: str) -> tuple[int, int]:
    """The server's connections to the database (this check's own left out), and how many
    of them run a query that waits on a lock."""
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE state = 'active' "
            "AND wait_event_type = 'Lock') FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


async def cancelled(call: Callable[[], Awaitable[Any]], turn: int) -> None:
    """``call`` cut by a deadline: an anyio cancel scope, or the runtimes' :func:`within`
    (a native asyncio timeout there), turn about."""
    if turn % 2:
        assert await within(call(), 0.05) is CUT
        return
    with anyio.move_on_after(0.05) as scope:
        await call()
    assert scope.cancelled_caught


async def no_query_waits(dsn: str) -> None:
    """Until no query waits on a lock (a cancel request takes a round trip to land)."""
    with anyio.fail_after(5):
        for _ in range(100):
            if not (await anyio.to_thread.run_sync(server_connections, dsn))[1]:
                return
            await anyio.sleep(0.05)
    pytest.fail("queries of cancelled calls still wait on the lock")


async def test_cancelled_session_calls_cancel_their_queries_and_keep_the_pool(
    make_adapter: Callable[[], StoreAdapter], postgres_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    """40 session checks and extensions cut by deadlines while ``sessions`` is locked: none
    of their queries still waits in the server, the server has no more connections than the
    pools allow, nothing is logged, and once the lock is gone the adapter reads again (the
    session as it was: no extension happened)."""
    caplog.set_level(logging.WARNING)
    async with make_adapter() as adapter:
        user = await adapter.create_user({"id": "", "email": "a@b.c", "email_verified": None})
        expires = NOW + timedelta(days=1)
        session = {"session_token": "t", "user_id": user["id"], "expires": expires}
        await adapter.create_session(session)  # type: ignore[arg-type]
        assert await adapter.get_session_and_user("t") is not None
        before, _ = await anyio.to_thread.run_sync(server_connections, postgres_dsn)
        later = {"session_token": "t", "expires": NOW + timedelta(days=2)}
        calls = (
            lambda: adapter.get_session_and_user("t"),
            lambda: adapter.update_session(later),  # type: ignore[arg-type]
        )
        with locked(postgres_dsn, "sessions"):
            for turn in range(CHECKS):  # each call cut by each kind of deadline
                await cancelled(calls[turn // 2 % 2], turn)
            await no_query_waits(postgres_dsn)
            count, _ = await anyio.to_thread.run_sync(server_connections, postgres_dsn)
            assert count <= before + POOL  # the locker's own is in ``count``, not ``before``
        with anyio.fail_after(10):
            for _ in range(3):
                found = await adapter.get_session_and_user("t")
                assert found is not None
                assert found["session"]["expires"] == expires
    assert_nothing_logged(caplog)


async def test_a_cancelled_write_is_rolled_back_whole(
    make_adapter: Callable[[], StoreAdapter], postgres_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A sign-up (a user and its account, one transaction) cut while the account's insert
    waits on a lock: the query is cancelled in the server and the transaction rolled back,
    so the user written before it is not there, then or after the lock is gone."""
    caplog.set_level(logging.WARNING)
    async with make_adapter() as adapter:
        user = {"id": "", "email": "new@b.c", "email_verified": None}
        account = {"type": "oauth", "provider": "github", "provider_account_id": "1"}
        with locked(postgres_dsn, "accounts"):
            for turn in range(2):
                await cancelled(
                    lambda: adapter.create_user_and_account(user, account),  # type: ignore[arg-type]
                    turn,
                )
            await no_query_waits(postgres_dsn)
        with anyio.fail_after(10):
            assert await adapter.get_user_by_email("new@b.c") is None
            assert await adapter.get_user_by_account("github", "1") is None
            created = await adapter.create_user_and_account(user, account)  # type: ignore[arg-type]
            assert created["account"]["user_id"] == created["user"]["id"]
    assert_nothing_logged(caplog)


async def test_failed_session_checks_log_no_error_and_the_next_one_works(
    make_adapter: Callable[[], StoreAdapter], postgres_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A check that fails on the server's error (its table gone), and checks on connections
    the server closed: each raises (or, where the pool notices, succeeds), nothing is
    logged, and then the adapter reads again."""
    caplog.set_level(logging.WARNING)
    async with make_adapter() as adapter:
        user = await adapter.create_user({"id": "", "email": "a@b.c", "email_verified": None})
        session = {"session_token": "t", "user_id": user["id"], "expires": NOW + timedelta(1)}
        await adapter.create_session(session)  # type: ignore[arg-type]
        assert await adapter.get_session_and_user("t") is not None
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute("ALTER TABLE sessions RENAME TO moved")
            with pytest.raises(Exception, match="sessions"):
                await adapter.get_session_and_user("t")
            conn.execute("ALTER TABLE moved RENAME TO sessions")
            conn.execute(  # each backend gone (5 s at most) before the checks, as after a restart
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        for _ in range(2 * POOL + 1):  # each dead connection may fail one check
            try:
                found = await adapter.get_session_and_user("t")
            except Exception:  # the connection the server closed
                continue
            assert found is not None
            break
        else:
            pytest.fail("no check succeeded after the server closed the connections")
    assert_nothing_logged(caplog)


def assert_nothing_logged(caplog: pytest.LogCaptureFixture) -> None:
    """No warning nor error (no connection closed with a traceback, no MissingGreenlet)."""
    logged = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.WARNING]
    assert not logged
    assert "MissingGreenlet" not in caplog.text
