"""The asyncio session calls of the PostgreSQL adapter (libpq driven through psycopg.pq):
that they read what the store reads (odd column types too), one statement prepared per
connection (none with ``prepare=False``), and the pool's bounds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import anyio
import psycopg
import psycopg_pool
import pytest

from io_bindings.db._postgres_asyncio import AsyncioSessions, numbered
from io_bindings.db.postgres import PostgresAdapter

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def anyio_backend() -> str:
    """These calls exist on asyncio only (on trio the store's threads serve them)."""
    return "asyncio"


def test_placeholders_are_numbered_in_order() -> None:
    assert numbered(b'UPDATE s SET a = %s, "b%%" = %s WHERE t = %s') == (
        b'UPDATE s SET a = $1, "b%" = $2 WHERE t = $3'
    )
    assert numbered(b"SELECT 1") == b"SELECT 1"


async def signed_in(adapter: PostgresAdapter) -> tuple[str, str]:
    """A user with a session; the session's token and the user's id."""
    user = await adapter.create_user({"id": "", "email": "s@b.c", "email_verified": None})
    expires = NOW + timedelta(days=1)
    await adapter.create_session({"session_token": "t", "user_id": user["id"], "expires": expires})
    return "t", user["id"]


def sessions_of(adapter: PostgresAdapter) -> AsyncioSessions:
    sessions = adapter._sessions
    assert sessions is not None
    return sessions


@pytest.mark.e2e
@pytest.mark.anyio
@pytest.mark.parametrize("prepare", [True, False])
async def test_a_read_is_one_statement_and_reads_what_the_store_reads(
    postgres_dsn: str, prepare: bool
) -> None:
    """Prepared once per connection (or never, for PgBouncer); the same records as the
    store's, with the types psycopg gives (JSON decoded, arrays as lists, UUIDs)."""
    async with PostgresAdapter(postgres_dsn):
        pass
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute('ALTER TABLE users ADD COLUMN prefs JSONB DEFAULT \'{"theme": "dark"}\'')
        conn.execute("ALTER TABLE users ADD COLUMN tags TEXT[] DEFAULT '{a,b}'")
        conn.execute("ALTER TABLE users ADD COLUMN ref UUID DEFAULT gen_random_uuid()")
    async with PostgresAdapter(postgres_dsn, max_size=1, prepare=prepare) as adapter:
        token, user_id = await signed_in(adapter)
        for _ in range(3):
            found = await adapter.get_session_and_user(token)
            assert found is not None
        assert await adapter.get_session_and_user("other") is None
        assert await adapter.get_session_and_user(f"{token}\0x") is None  # not cut at NUL
        assert await adapter.get_session_and_user(f"{token}é") is None
        store = adapter.store
        assert await anyio.to_thread.run_sync(store.get_session_and_user, f"{token}\0") is None
        threaded = await anyio.to_thread.run_sync(store.get_session_and_user, token)
        assert threaded is not None
        assert (found["session"], found["user"]) == threaded
        assert found["user"]["prefs"] == {"theme": "dark"}  # type: ignore[typeddict-item]
        assert found["user"]["tags"] == ["a", "b"]  # type: ignore[typeddict-item]
        assert found["user"] == await adapter.get_user(user_id)
        (pooled,) = sessions_of(adapter)._idle
        cursor = await pooled.conn.execute("SELECT name FROM pg_prepared_statements")
        names = [row["name"] for row in await cursor.fetchall()]
        assert names.count("sansio_auth_session_and_user") == (1 if prepare else 0)


@pytest.mark.e2e
@pytest.mark.anyio
async def test_a_failing_read_raises_the_servers_error_and_the_pool_goes_on(
    postgres_dsn: str,
) -> None:
    async with PostgresAdapter(postgres_dsn, max_size=1) as adapter:
        token, _ = await signed_in(adapter)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute("ALTER TABLE sessions RENAME TO moved")
            with pytest.raises(psycopg.errors.UndefinedTable):
                await adapter.get_session_and_user(token)
            conn.execute("ALTER TABLE moved RENAME TO sessions")
        assert await adapter.get_session_and_user(token) is not None


@pytest.mark.e2e
@pytest.mark.anyio
async def test_calls_wait_for_a_free_connection_up_to_the_timeout(postgres_dsn: str) -> None:
    """``max_size`` bounds the connections; a call that finds none free in ``timeout``
    seconds fails with psycopg_pool's error, as the store's calls do."""
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
        assert len(sessions_of(adapter)._idle) == 2
