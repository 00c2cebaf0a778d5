"""The asyncio session calls of the PostgreSQL adapter on asyncpg: when they are taken,
that they read what the store reads (odd column types too), one prepared statement per
connection, and the pool's bounds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import psycopg
import psycopg_pool
import pytest

from io_bindings.db._postgres_asyncio import AsyncioSessions
from io_bindings.db._postgres_asyncpg import AsyncpgSessions, connect_options, numbered
from io_bindings.db.postgres import PostgresAdapter

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def anyio_backend() -> str:
    """asyncpg runs on asyncio only (on trio the store's threads serve these calls)."""
    return "asyncio"


def test_placeholders_are_numbered_in_order() -> None:
    assert numbered('UPDATE s SET a = %s, "b%%" = %s WHERE t = %s') == (
        'UPDATE s SET a = $1, "b%" = $2 WHERE t = $3'
    )
    assert numbered("SELECT 1") == "SELECT 1"


def test_connection_options_of_a_dsn_and_a_url() -> None:
    assert connect_options("host=db port=6432 user=auth dbname=app sslmode=require") == {
        "host": "db", "port": 6432, "user": "auth", "database": "app", "ssl": "require",
    }  # fmt: skip
    assert connect_options("postgresql://auth:pw@db/app?application_name=web") == {
        "host": "db", "user": "auth", "password": "pw", "database": "app",
        "server_settings": {"application_name": "web"},
    }  # fmt: skip
    with pytest.raises(ValueError, match="target_session_attrs"):
        connect_options("host=a,b target_session_attrs=read-write")


async def signed_in(adapter: PostgresAdapter) -> tuple[str, str]:
    """A user with a session; the session's token and the user's id."""
    user = await adapter.create_user({"id": "", "email": "s@b.c", "email_verified": None})
    expires = NOW + timedelta(days=1)
    await adapter.create_session({"session_token": "t", "user_id": user["id"], "expires": expires})
    return "t", user["id"]


@pytest.mark.e2e
@pytest.mark.anyio
@pytest.mark.parametrize(
    ("options", "driver"),
    [({}, AsyncpgSessions), ({"prepare": False}, AsyncioSessions)],
)
async def test_asyncpg_runs_the_session_calls_when_statements_are_prepared(
    postgres_dsn: str, options: dict[str, Any], driver: type
) -> None:
    """Without prepared statements (PgBouncer) asyncpg would need two round trips a read,
    and with a DSN parameter asyncpg cannot take it would connect elsewhere: psycopg then."""
    for dsn in (postgres_dsn, f"{postgres_dsn} connect_timeout=5"):
        async with PostgresAdapter(dsn, **options) as adapter:
            token, _ = await signed_in(adapter)
            assert await adapter.get_session_and_user(token) is not None
            taken = driver if dsn == postgres_dsn else AsyncioSessions
            assert type(adapter._sessions) is taken
            await adapter.delete_user((await adapter.get_user_by_email("s@b.c") or {})["id"])


@pytest.mark.e2e
@pytest.mark.anyio
async def test_a_read_is_one_prepared_statement_and_reads_what_the_store_reads(
    postgres_dsn: str,
) -> None:
    async with PostgresAdapter(postgres_dsn):
        pass
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute('ALTER TABLE users ADD COLUMN prefs JSONB DEFAULT \'{"theme": "dark"}\'')
        conn.execute("ALTER TABLE users ADD COLUMN tags TEXT[] DEFAULT '{a,b}'")
        conn.execute("ALTER TABLE users ADD COLUMN ref UUID DEFAULT gen_random_uuid()")
    async with PostgresAdapter(postgres_dsn, max_size=1) as adapter:
        token, user_id = await signed_in(adapter)
        for _ in range(3):
            found = await adapter.get_session_and_user(token)
            assert found is not None
        threaded = await anyio.to_thread.run_sync(adapter.store.get_session_and_user, token)
        assert threaded is not None
        assert (found["session"], found["user"]) == threaded
        assert found["user"]["prefs"] == {"theme": "dark"}  # type: ignore[typeddict-item]
        assert found["user"]["tags"] == ["a", "b"]  # type: ignore[typeddict-item]
        assert found["user"] == await adapter.get_user(user_id)
        sessions = adapter._sessions
        assert isinstance(sessions, AsyncpgSessions)
        (conn,) = sessions._idle
        prepared = await conn.fetch("SELECT statement FROM pg_prepared_statements")
        assert [row["statement"] for row in prepared].count(sessions._session_and_user) == 1


@pytest.mark.e2e
@pytest.mark.anyio
async def test_calls_wait_for_a_free_connection_up_to_the_timeout(postgres_dsn: str) -> None:
    """``max_size`` bounds the asyncpg connections; a call that finds none free in
    ``timeout`` seconds fails with psycopg_pool's error, as the store's calls do."""
    async with PostgresAdapter(postgres_dsn, max_size=2, timeout=0.5) as adapter:
        token, _ = await signed_in(adapter)
        locker = psycopg.connect(postgres_dsn)
        locker.execute("LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE")
        later = NOW + timedelta(days=2)
        async with anyio.create_task_group() as group:
            for _ in range(2):  # both connections wait on the lock
                group.start_soon(adapter.update_session, {"session_token": token, "expires": later})
            await anyio.sleep(0.2)
            with pytest.raises(psycopg_pool.PoolTimeout):
                await adapter.get_session_and_user(token)
            locker.rollback()
        locker.close()
        found = await adapter.get_session_and_user(token)
        assert found is not None
        assert found["session"]["expires"] == later
        sessions = adapter._sessions
        assert isinstance(sessions, AsyncpgSessions)
        assert len(sessions._idle) == 2
