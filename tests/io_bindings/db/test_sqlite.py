"""What only the SQLite adapter does: WAL, the schema version table, migrations, one file."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import pytest

from io_bindings.db import sqlite as sqlite_adapter
from io_bindings.db.sqlite import SCHEMA_VERSION, SQLiteAdapter

pytestmark = pytest.mark.anyio

USER = {"id": "u1", "email": "ada@example.com", "email_verified": None, "name": "Ada"}


def read(path: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(query).fetchall()


async def test_the_file_is_in_wal_mode_with_the_current_schema(tmp_path: Path) -> None:
    path = tmp_path / "auth.db"
    async with SQLiteAdapter(path):
        pass
    assert read(path, "PRAGMA journal_mode") == [("wal",)]
    assert read(path, "SELECT version FROM sansio_auth_schema") == [(SCHEMA_VERSION,)]
    tables = {row[0] for row in read(path, "SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"users", "accounts", "sessions", "verification_tokens", "authenticators"} <= tables


async def test_data_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "auth.db"
    async with SQLiteAdapter(path) as adapter:
        user = await adapter.create_user(USER)  # type: ignore[arg-type]
    async with SQLiteAdapter(path) as adapter:
        assert await adapter.get_user("u1") == user
    assert read(path, "SELECT count(*) FROM sansio_auth_schema") == [(1,)]


async def test_an_older_schema_is_migrated_forward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "auth.db"
    async with SQLiteAdapter(path) as adapter:
        await adapter.create_user(USER)  # type: ignore[arg-type]
    upgrade = ("ALTER TABLE users ADD COLUMN locale TEXT", "UPDATE users SET locale = 'en'")
    monkeypatch.setattr(sqlite_adapter, "MIGRATIONS", (*sqlite_adapter.MIGRATIONS, upgrade))
    monkeypatch.setattr(sqlite_adapter, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    async with SQLiteAdapter(path) as adapter:
        assert await adapter.get_user("u1") is not None
    assert read(path, "SELECT version FROM sansio_auth_schema") == [(SCHEMA_VERSION + 1,)]
    assert read(path, "SELECT id, locale FROM users") == [("u1", "en")]


async def test_a_version_2_database_gains_sids_expiring_marks_and_counters(
    tmp_path: Path,
) -> None:
    """A file written before issue 21 opens with its data: its sessions have no ``sid``, its
    marks never expire, and the new methods work on it."""
    path = tmp_path / "auth.db"
    expires = datetime.now(UTC) + timedelta(days=1)
    session = {"session_token": "old", "user_id": "u1", "expires": expires}
    with sqlite3.connect(path) as conn:  # what the version-2 adapter wrote
        for statement in (s for version in sqlite_adapter.MIGRATIONS[:2] for s in version):
            conn.execute(statement)
        conn.execute("CREATE TABLE sansio_auth_schema (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO sansio_auth_schema VALUES (2)")
        conn.execute("INSERT INTO users (id, email) VALUES ('u1', 'ada@example.com')")
        conn.execute(
            "INSERT INTO sessions VALUES ('old', 'u1', ?)", (sqlite_adapter.format_time(expires),)
        )
        long_ago = "2020-01-01T00:00:00.000000Z"
        conn.execute("INSERT INTO session_revocations VALUES ('user:u1', ?)", (long_ago,))
    async with SQLiteAdapter(path) as adapter:
        found = await adapter.get_session_and_user("old")
        assert found is not None
        assert found["session"] == session
        now = datetime.now(UTC)
        await adapter.set_sessions_not_before("user:u2", now, now + timedelta(hours=1))
        assert await adapter.get_sessions_not_before(["user:u1"]) is not None  # kept for good
        assert (await adapter.increment_counter("k", 60, now))[0] == 1
        await adapter.create_session({**session, "session_token": "new", "sid": "op:p:s"})  # type: ignore[typeddict-unknown-key]
        assert await adapter.delete_sessions_by_sid("op:p:s") == 1
    assert read(path, "SELECT version FROM sansio_auth_schema") == [(SCHEMA_VERSION,)]


async def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "auth.db"
    async with SQLiteAdapter(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE sansio_auth_schema SET version = 99")
    with pytest.raises(RuntimeError, match="schema version 99"):
        await SQLiteAdapter(path).open()


async def test_in_memory_database(tmp_path: Path) -> None:
    async with SQLiteAdapter(":memory:") as adapter:
        user = await adapter.create_user(USER)  # type: ignore[arg-type]
        assert await adapter.get_user_by_email("ada@example.com") == user


async def test_two_adapters_on_one_file_race_for_a_token(tmp_path: Path) -> None:
    """Like two worker processes: the file's write lock decides, one use wins."""
    path = tmp_path / "auth.db"
    expires = datetime.now(UTC) + timedelta(minutes=5)
    async with SQLiteAdapter(path) as first, SQLiteAdapter(path) as second:
        for n in range(10):
            await first.create_verification_token(
                {"identifier": "a@b.c", "token": f"t{n}", "expires": expires}
            )
            results: list[object] = []
            async with anyio.create_task_group() as group:
                for adapter in (first, second, first, second):
                    group.start_soon(use, adapter, f"t{n}", results)
            assert len([r for r in results if r is not None]) == 1


async def use(adapter: SQLiteAdapter, token: str, results: list[object]) -> None:
    results.append(await adapter.use_verification_token("a@b.c", token))


async def test_a_cancelled_call_returns_at_once_and_its_transaction_still_ends(
    tmp_path: Path,
) -> None:
    """A deadline does not wait for a write stuck on the database's lock; the write still
    happens, whole, once the lock is free."""
    path = tmp_path / "auth.db"
    async with SQLiteAdapter(path) as adapter:
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # the adapter's write waits for this lock
        started = anyio.current_time()
        with anyio.move_on_after(0.1) as scope:
            await adapter.create_user(USER)  # type: ignore[arg-type]
        waited = anyio.current_time() - started
        assert scope.cancelled_caught
        assert waited < 0.4  # abandoned at the deadline, not held until the lock is free
        blocker.execute("COMMIT")
        blocker.close()
        for _ in range(250):  # the abandoned write lands once the lock is free
            if await adapter.get_user("u1") is not None:
                break
            await anyio.sleep(0.02)
        assert await adapter.get_user("u1") is not None


async def signed_in(adapter: SQLiteAdapter) -> str:
    """A user with a session; its token."""
    await adapter.create_user(USER)  # type: ignore[arg-type]
    expires = datetime.now(UTC) + timedelta(days=1)
    await adapter.create_session({"session_token": "t", "user_id": "u1", "expires": expires})
    return "t"


async def test_the_session_check_reads_at_once_without_a_worker_thread(tmp_path: Path) -> None:
    async with SQLiteAdapter(tmp_path / "auth.db") as adapter:
        token = await signed_in(adapter)

        def threaded(session_token: str) -> object:
            raise AssertionError("the session check went to a worker thread")

        adapter.store.get_session_and_user = threaded  # type: ignore[method-assign]
        found = await adapter.get_session_and_user(token)
        assert found is not None
        assert found["user"]["email"] == USER["email"]
        assert await adapter.get_session_and_user("other") is None


async def test_a_busy_database_is_waited_for_in_a_worker_thread(tmp_path: Path) -> None:
    async with SQLiteAdapter(tmp_path / "auth.db") as adapter:
        token = await signed_in(adapter)

        def busy(session_token: str) -> object:
            raise sqlite3.OperationalError("database is locked")

        adapter.store.get_session_and_user_at_once = busy  # type: ignore[method-assign]
        found = await adapter.get_session_and_user(token)
        assert found is not None
        assert found["user"]["email"] == USER["email"]


async def test_an_in_memory_database_is_read_on_its_one_connection() -> None:
    async with SQLiteAdapter(":memory:") as adapter:
        token = await signed_in(adapter)
        found = await adapter.get_session_and_user(token)
        assert found is not None
        assert found["session"]["session_token"] == token


def test_the_schema_versions_are_in_order() -> None:
    """3: password hashes and second factors; 4: provider sids, expiring marks, rate-limit
    counters; 5: the sessions' device columns and the JWT session records."""
    assert SCHEMA_VERSION == 5
    assert "user_passwords" in sqlite_adapter.MIGRATIONS[2][0]
    assert "sid" in sqlite_adapter.MIGRATIONS[3][0]
    assert "created_at" in sqlite_adapter.MIGRATIONS[4][0]


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
async def test_a_database_of_each_earlier_version_upgrades(tmp_path: Path, version: int) -> None:
    """A file left at ``version`` (its rows of that time in it) opens at the current version:
    its user and session kept (with its provider sid from version 4), and what the later
    versions added works on them."""
    path = tmp_path / "auth.db"
    now = datetime.now(UTC).replace(microsecond=0)
    expires = now + timedelta(days=1)
    with sqlite3.connect(path) as conn:
        for statements in sqlite_adapter.MIGRATIONS[:version]:
            for statement in statements:
                conn.execute(statement)
        conn.execute("CREATE TABLE sansio_auth_schema (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO sansio_auth_schema VALUES (?)", (version,))
        conn.execute("INSERT INTO users (id, email, name) VALUES ('u1', 'ada@example.com', 'Ada')")
        conn.execute(
            "INSERT INTO sessions (session_token, user_id, expires) VALUES ('s1', 'u1', ?)",
            (expires.isoformat(),),
        )
        if version >= 4:
            conn.execute("UPDATE sessions SET sid = 'op-1' WHERE session_token = 's1'")
    kept = {"sid": "op-1"} if version >= 4 else {}
    async with SQLiteAdapter(path) as adapter:
        assert (await adapter.get_user("u1"))["email"] == "ada@example.com"  # type: ignore[index]
        [session] = await adapter.list_sessions_by_user_id("u1")
        assert session == {"session_token": "s1", "user_id": "u1", "expires": expires, **kept}
        await adapter.set_password_hash("u1", "$argon2id$x")
        assert await adapter.get_password_hash("u1") == "$argon2id$x"
        record = {"sid": "j1", "user_id": "u1", "expires": expires, "created_at": expires}
        await adapter.create_session_record(record)  # type: ignore[arg-type]
        assert [r["sid"] for r in await adapter.list_session_records("u1")] == ["j1"]
        assert (await adapter.increment_counter("k", 60, now))[0] == 1
        assert await adapter.delete_sessions_by_sid("op-1") == (1 if version >= 4 else 0)
    assert read(path, "SELECT version FROM sansio_auth_schema") == [(SCHEMA_VERSION,)]
