"""What only the PostgreSQL adapter does: Auth.js's tables, shared with a real Auth.js app."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import psycopg
import psycopg_pool
import pytest
from live_server import free_port
from psycopg.conninfo import conninfo_to_dict

from io_bindings.db import postgres as postgres_adapter
from io_bindings.db.postgres import SCHEMA_VERSION, PostgresAdapter

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

NOW = datetime.now(UTC).replace(microsecond=0)

# @auth/pg-adapter's schema.sql (column name → information_schema data type).
AUTHJS_TABLES = {
    "users": {
        "id": "integer",
        "name": "character varying",
        "email": "character varying",
        "emailVerified": "timestamp with time zone",
        "image": "text",
    },
    "accounts": {
        "id": "integer",
        "userId": "integer",
        "type": "character varying",
        "provider": "character varying",
        "providerAccountId": "character varying",
        "refresh_token": "text",
        "access_token": "text",
        "expires_at": "bigint",
        "id_token": "text",
        "scope": "text",
        "session_state": "text",
        "token_type": "text",
    },
    "sessions": {
        "id": "integer",
        "userId": "integer",
        "expires": "timestamp with time zone",
        "sessionToken": "character varying",
    },
    "verification_token": {
        "identifier": "text",
        "expires": "timestamp with time zone",
        "token": "text",
    },
}


# What we add to them: nullable columns Auth.js's adapter neither reads nor needs.
OUR_COLUMNS = {  # nullable: Auth.js's rows have none
    "sessions": {
        "sid": "text",  # the provider session (back-channel logout)
        "createdAt": "timestamp with time zone",  # the user's list of sessions
        "lastSeenAt": "timestamp with time zone",
        "userAgent": "text",
        "ipAddress": "text",
    }
}


def columns(dsn: str, table: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'public' AND table_name = %s",
            (table,),
        ).fetchall()
    return dict(rows)


def execute(dsn: str, *statements: str) -> None:
    with psycopg.connect(dsn) as conn:
        for statement in statements:
            conn.execute(statement.encode())


async def test_the_tables_are_those_of_authjs(postgres_dsn: str) -> None:
    async with PostgresAdapter(postgres_dsn):
        pass
    for table, expected in AUTHJS_TABLES.items():
        assert columns(postgres_dsn, table) == expected | OUR_COLUMNS.get(table, {}), table
    assert set(columns(postgres_dsn, "authenticators")) == {
        "credentialID",
        "userId",
        "providerAccountId",
        "credentialPublicKey",
        "counter",
        "credentialDeviceType",
        "credentialBackedUp",
        "transports",
    }


async def test_user_ids_are_the_serial_column_as_text(postgres_dsn: str) -> None:
    async with PostgresAdapter(postgres_dsn) as adapter:
        first = await adapter.create_user(
            {"id": "proposed", "email": "a@b.c", "email_verified": None}
        )
        second = await adapter.create_user(
            {"id": "proposed", "email": None, "email_verified": None}
        )
    assert (first["id"], second["id"]) == ("1", "2")


async def test_javascript_and_python_share_the_database(
    postgres_dsn: str, authjs_pg: Callable[..., Awaitable[Any]]
) -> None:
    """Auth.js's own ``@auth/pg-adapter`` (in Node) and this adapter read each other's rows."""
    params = conninfo_to_dict(postgres_dsn)
    url = f"postgresql://postgres@127.0.0.1:{params['port']}/{params['dbname']}"

    async def authjs(op: str, **payload: Any) -> Any:
        return await authjs_pg(op, url=url, **payload)

    async with PostgresAdapter(postgres_dsn) as adapter:
        js = await authjs("seed", now=int(NOW.timestamp() * 1000))
        user_id = str(js["user"]["id"])
        user = {
            "id": user_id,
            "name": "Ada",
            "email": "ada@example.com",
            "email_verified": NOW,
            "image": None,
        }
        assert await adapter.get_user(user_id) == user
        assert await adapter.get_user_by_account("github", "gh-1") == user
        assert await adapter.get_account("github", "gh-1") == {
            "user_id": user_id,
            "type": "oauth",
            "provider": "github",
            "provider_account_id": "gh-1",
            "access_token": "at",
            "token_type": "bearer",
            "id_token": "it",
            "refresh_token": "rt",
            "scope": "read:user",
            "expires_at": 1900000000,
            "session_state": "ss",
        }
        found = await adapter.get_session_and_user("js-session")
        assert found == {
            "session": {
                "session_token": "js-session",
                "user_id": user_id,
                "expires": NOW + timedelta(days=1),
            },
            "user": user,
        }
        token = await adapter.use_verification_token("ada@example.com", "js-token")
        assert token is not None
        assert token["expires"] == NOW + timedelta(days=1)

        mine = await adapter.create_user(
            {"id": "", "email": "grace@example.com", "email_verified": NOW, "name": "Grace"}
        )
        await adapter.link_account(
            {
                "user_id": mine["id"],
                "type": "oidc",
                "provider": "google",
                "provider_account_id": "g-1",
                "expires_at": 1900000001,
            }
        )
        await adapter.create_session(
            {"session_token": "py-session", "user_id": mine["id"], "expires": NOW}
        )
        await adapter.create_verification_token(
            {"identifier": "grace@example.com", "token": "py-token", "expires": NOW}
        )
        read = await authjs(
            "read",
            userId=mine["id"],
            email="grace@example.com",
            provider="google",
            providerAccountId="g-1",
            sessionToken="py-session",
            token="py-token",
        )
    grace = {
        "id": int(mine["id"]),
        "name": "Grace",
        "email": "grace@example.com",
        "emailVerified": NOW.isoformat().replace("+00:00", ".000Z"),
        "image": None,
    }
    assert read["user"] == grace
    assert read["byEmail"] == grace
    assert read["byAccount"] == grace
    assert read["sessionAndUser"]["user"] == grace
    assert read["sessionAndUser"]["session"]["userId"] == int(mine["id"])
    assert read["sessionAndUser"]["session"]["expires"] == grace["emailVerified"]
    assert read["token"]["token"] == "py-token"
    assert read["tokenAgain"] is None


async def test_tables_made_by_authjs_are_adopted(postgres_dsn: str) -> None:
    """Auth.js's schema.sql (e-mail NOT NULL variant) run first; the adapter adds what it lacks."""
    execute(
        postgres_dsn,
        "CREATE TABLE users (id SERIAL, name VARCHAR(255), email VARCHAR(255) UNIQUE NOT NULL, "
        '"emailVerified" TIMESTAMPTZ, image TEXT, PRIMARY KEY (id))',
        'CREATE TABLE accounts (id SERIAL, "userId" INTEGER NOT NULL REFERENCES users '
        "ON DELETE CASCADE, type VARCHAR(255) NOT NULL, provider VARCHAR(255) NOT NULL, "
        '"providerAccountId" VARCHAR(255) NOT NULL, refresh_token TEXT, access_token TEXT, '
        "expires_at BIGINT, id_token TEXT, scope TEXT, session_state TEXT, token_type TEXT, "
        'PRIMARY KEY (id), UNIQUE (provider, "providerAccountId"))',
        'CREATE TABLE sessions (id SERIAL, "userId" INTEGER NOT NULL REFERENCES users '
        'ON DELETE CASCADE, expires TIMESTAMPTZ NOT NULL, "sessionToken" VARCHAR(255) UNIQUE '
        "NOT NULL, PRIMARY KEY (id))",
        "CREATE TABLE verification_token (identifier TEXT NOT NULL, expires TIMESTAMPTZ "
        "NOT NULL, token TEXT NOT NULL, PRIMARY KEY (identifier, token))",
        "INSERT INTO users (name, email) VALUES ('Ada', 'ada@example.com')",
    )
    async with PostgresAdapter(postgres_dsn) as adapter:
        ada = await adapter.get_user_by_email("ada@example.com")
        assert ada == {
            "id": "1",
            "name": "Ada",
            "email": "ada@example.com",
            "email_verified": None,
            "image": None,
        }
        await adapter.create_authenticator(
            {
                "credential_id": "c1",
                "user_id": "1",
                "provider_account_id": "c1",
                "credential_public_key": "key",
                "counter": 1,
                "credential_device_type": "multiDevice",
                "credential_backed_up": True,
            }
        )
        assert len(await adapter.list_authenticators_by_user_id("1")) == 1
    assert columns(postgres_dsn, "users")["email"] == "character varying"


async def test_custom_keys_go_to_columns_added_to_the_tables(postgres_dsn: str) -> None:
    async with PostgresAdapter(postgres_dsn):
        pass
    execute(postgres_dsn, "ALTER TABLE users ADD COLUMN role TEXT DEFAULT 'user'")
    execute(postgres_dsn, "ALTER TABLE accounts ADD COLUMN refresh_token_expires_in INTEGER")
    async with PostgresAdapter(postgres_dsn) as adapter:
        user = await adapter.create_user(
            {"id": "", "email": "a@b.c", "email_verified": None, "role": "admin", "phone": "0"}  # type: ignore[typeddict-unknown-key]
        )
        assert user["role"] == "admin"  # type: ignore[typeddict-item]
        assert "phone" not in user
        assert await adapter.get_user(user["id"]) == user
        default = await adapter.create_user({"id": "", "email": None, "email_verified": None})
        assert default["role"] == "user"  # type: ignore[typeddict-item]
        updated = await adapter.update_user({"id": user["id"], "role": "owner"})  # type: ignore[typeddict-unknown-key]
        assert updated == {**user, "role": "owner"}
        account = await adapter.link_account(
            {
                "user_id": user["id"],
                "type": "oauth",
                "provider": "github",
                "provider_account_id": "1",
                "refresh_token_expires_in": 15897600,  # type: ignore[typeddict-unknown-key]
                "not_a_column": "dropped",
            }
        )
        assert account["refresh_token_expires_in"] == 15897600  # type: ignore[typeddict-item]
        assert "not_a_column" not in account
        assert await adapter.get_account("github", "1") == account


async def test_text_user_ids_are_kept(postgres_dsn: str) -> None:
    """A schema with text ids (no default) keeps the id the engine proposes."""
    execute(
        postgres_dsn,
        'CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, email TEXT UNIQUE, "emailVerified" '
        "TIMESTAMPTZ, image TEXT)",
        'CREATE TABLE accounts (id SERIAL PRIMARY KEY, "userId" TEXT NOT NULL REFERENCES users '
        "ON DELETE CASCADE, type TEXT NOT NULL, provider TEXT NOT NULL, "
        '"providerAccountId" TEXT NOT NULL, refresh_token TEXT, access_token TEXT, '
        "expires_at BIGINT, id_token TEXT, scope TEXT, session_state TEXT, token_type TEXT, "
        'UNIQUE (provider, "providerAccountId"))',
        'CREATE TABLE sessions (id SERIAL PRIMARY KEY, "userId" TEXT NOT NULL REFERENCES users '
        'ON DELETE CASCADE, expires TIMESTAMPTZ NOT NULL, "sessionToken" TEXT UNIQUE NOT NULL)',
        'CREATE TABLE authenticators ("credentialID" TEXT PRIMARY KEY, "userId" TEXT NOT NULL '
        'REFERENCES users ON DELETE CASCADE, "providerAccountId" TEXT NOT NULL, '
        '"credentialPublicKey" TEXT NOT NULL, counter BIGINT NOT NULL, '
        '"credentialDeviceType" TEXT NOT NULL, "credentialBackedUp" BOOLEAN NOT NULL, '
        "transports TEXT)",
    )
    async with PostgresAdapter(postgres_dsn) as adapter:
        user = await adapter.create_user({"id": "u-42", "email": "a@b.c", "email_verified": None})
        assert user["id"] == "u-42"
        session = {"session_token": "s", "user_id": "u-42", "expires": NOW}
        await adapter.create_session(session)  # type: ignore[arg-type]
        assert await adapter.get_session_and_user("s") == {"session": session, "user": user}
        assert await adapter.delete_user("u-42") == user
        assert await adapter.get_session_and_user("s") is None


async def test_concurrent_first_starts_migrate_once(postgres_dsn: str) -> None:
    adapters = [PostgresAdapter(postgres_dsn) for _ in range(4)]
    async with anyio.create_task_group() as group:
        for adapter in adapters:
            group.start_soon(adapter.open)
    for adapter in adapters:
        await adapter.aclose()
    with psycopg.connect(postgres_dsn) as conn:
        rows = conn.execute("SELECT version FROM sansio_auth_schema").fetchall()
    assert rows == [(SCHEMA_VERSION,)]


async def test_a_version_2_database_gains_sids_expiring_marks_and_counters(
    postgres_dsn: str,
) -> None:
    """A database written before issue 21 opens with its data: its sessions have no ``sid``,
    its marks never expire, and the new methods work on it."""
    from io_bindings.db.postgres import MIGRATIONS

    execute(
        postgres_dsn,
        *(statement for version in MIGRATIONS[:2] for statement in version),
        "CREATE TABLE sansio_auth_schema (version INTEGER NOT NULL)",
        "INSERT INTO sansio_auth_schema VALUES (2)",
        "INSERT INTO users (email) VALUES ('a@b.c')",
        f"INSERT INTO sessions (\"sessionToken\", \"userId\", expires) VALUES ('old', 1, '{NOW}')",
        "INSERT INTO session_revocations VALUES ('user:1', '2020-01-01Z')",
    )
    async with PostgresAdapter(postgres_dsn) as adapter:
        found = await adapter.get_session_and_user("old")
        assert found is not None
        assert found["session"] == {"session_token": "old", "user_id": "1", "expires": NOW}
        await adapter.set_sessions_not_before("user:other", NOW + timedelta(days=60), None)
        assert await adapter.get_sessions_not_before(["user:1"]) is not None  # kept for good
        assert (await adapter.increment_counter("k", 60, NOW))[0] == 1
        session = {**found["session"], "session_token": "new", "sid": "op:p:s"}
        await adapter.create_session(session)  # type: ignore[arg-type]
        assert await adapter.delete_sessions_by_sid("op:p:s") == 1
    with psycopg.connect(postgres_dsn) as conn:
        rows = conn.execute("SELECT version FROM sansio_auth_schema").fetchall()
    assert rows == [(SCHEMA_VERSION,)]


async def test_a_newer_schema_is_refused(postgres_dsn: str) -> None:
    async with PostgresAdapter(postgres_dsn):
        pass
    execute(postgres_dsn, f"UPDATE sansio_auth_schema SET version = {SCHEMA_VERSION + 1}")
    adapter = PostgresAdapter(postgres_dsn)
    with pytest.raises(RuntimeError, match="schema version"):
        await adapter.open()
    await adapter.aclose()


async def test_an_unreachable_server_fails_to_open() -> None:
    adapter = PostgresAdapter(f"host=127.0.0.1 port={free_port()} user=postgres", timeout=1)
    with pytest.raises(psycopg_pool.PoolTimeout):
        await adapter.open()
    await adapter.aclose()


async def signed_in(adapter: PostgresAdapter) -> str:
    """A user with a session; its token."""
    user = await adapter.create_user({"id": "", "email": "s@b.c", "email_verified": None})
    expires = NOW + timedelta(days=1)
    await adapter.create_session({"session_token": "t", "user_id": user["id"], "expires": expires})
    return "t"


async def test_on_asyncio_session_checks_need_no_worker_thread(
    postgres_dsn: str, anyio_backend: str
) -> None:
    """The session check and the session's extension; other calls use the threads."""
    async with PostgresAdapter(postgres_dsn) as adapter:
        token = await signed_in(adapter)

        def threaded(*args: Any) -> Any:
            raise AssertionError("the call went through the synchronous store")

        adapter.store.get_session_and_user = threaded  # type: ignore[method-assign]
        adapter.store.update_session = threaded  # type: ignore[method-assign]
        later = NOW + timedelta(days=2)
        if anyio_backend == "asyncio":
            found = await adapter.get_session_and_user(token)
            assert found is not None
            assert found["user"]["email"] == "s@b.c"
            assert await adapter.get_session_and_user("other") is None
            extended = await adapter.update_session({"session_token": token, "expires": later})
            assert extended == {**found["session"], "expires": later}
            assert await adapter.update_session({"session_token": "other"}) is None
            with pytest.raises(LookupError):
                await adapter.update_session({"session_token": token, "user_id": "999"})
            assert await adapter.get_user(found["user"]["id"]) == found["user"]
        else:
            with pytest.raises(AssertionError, match="synchronous store"):
                await adapter.get_session_and_user(token)
            with pytest.raises(AssertionError, match="synchronous store"):
                await adapter.update_session({"session_token": token, "expires": later})


async def test_connections_the_server_closed_are_replaced_unnoticed(postgres_dsn: str) -> None:
    """The pools check a connection with a round trip only when its socket has something
    to read: a server that ended the session has sent a notice and closed it."""
    async with PostgresAdapter(postgres_dsn) as adapter:
        token = await signed_in(adapter)
        assert await adapter.get_session_and_user(token) is not None
        execute(
            postgres_dsn,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        await anyio.sleep(0.2)  # the notices arrive
        for _ in range(3):
            found = await adapter.get_session_and_user(token)
            assert found is not None
            assert found["session"]["session_token"] == token
            assert await adapter.get_user(found["user"]["id"]) == found["user"]


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
async def test_a_database_of_each_earlier_version_upgrades(postgres_dsn: str, version: int) -> None:
    """A database left at ``version`` (its rows of that time in it) opens at the current
    version: its user and session kept (with its provider sid from version 4), and what the
    later versions added works on them."""
    expires = NOW + timedelta(days=1)
    with psycopg.connect(postgres_dsn) as conn:
        for statements in postgres_adapter.MIGRATIONS[:version]:
            for statement in statements:
                conn.execute(statement.encode())
        conn.execute("CREATE TABLE sansio_auth_schema (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO sansio_auth_schema VALUES (%s)", (version,))
        row = conn.execute(
            "INSERT INTO users (name, email) VALUES ('Ada', 'ada@example.com') RETURNING id"
        ).fetchone()
        assert row is not None
        user_id = str(row[0])
        conn.execute(
            'INSERT INTO sessions ("userId", expires, "sessionToken") VALUES (%s, %s, %s)',
            (row[0], expires, "s1"),
        )
        if version >= 4:
            conn.execute("UPDATE sessions SET sid = 'op-1'")
    kept = {"sid": "op-1"} if version >= 4 else {}
    async with PostgresAdapter(postgres_dsn) as adapter:
        assert (await adapter.get_user(user_id))["email"] == "ada@example.com"  # type: ignore[index]
        [session] = await adapter.list_sessions_by_user_id(user_id)
        assert session == {"session_token": "s1", "user_id": user_id, "expires": expires, **kept}
        await adapter.set_password_hash(user_id, "$argon2id$x")
        assert await adapter.get_password_hash(user_id) == "$argon2id$x"
        record = {"sid": "j1", "user_id": user_id, "expires": expires, "created_at": expires}
        await adapter.create_session_record(record)  # type: ignore[arg-type]
        assert [r["sid"] for r in await adapter.list_session_records(user_id)] == ["j1"]
        assert (await adapter.increment_counter("k", 60, NOW))[0] == 1
        assert await adapter.delete_sessions_by_sid("op-1") == (1 if version >= 4 else 0)
    with psycopg.connect(postgres_dsn) as conn:
        assert conn.execute("SELECT version FROM sansio_auth_schema").fetchall() == [
            (SCHEMA_VERSION,)
        ]


async def test_a_deadline_cuts_calls_stuck_on_a_lock_and_the_pool_recovers(
    postgres_dsn: str,
) -> None:
    """A session check (the asyncio path on asyncio, a worker thread on trio) and a write
    stuck behind a table lock return at the caller's deadline; once the lock is gone, the
    pools' connections work (none is left mid-query)."""
    async with PostgresAdapter(postgres_dsn, max_size=2) as adapter:
        token = await signed_in(adapter)
        locker = psycopg.connect(postgres_dsn)
        locker.execute("LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE")
        later = NOW + timedelta(days=3)
        calls = (
            lambda: adapter.get_session_and_user(token),
            lambda: adapter.update_session({"session_token": token, "expires": later}),
            lambda: adapter.create_session(
                {"session_token": "other", "user_id": "1", "expires": later}
            ),
        )
        for call in calls * 2:
            started = anyio.current_time()
            with anyio.move_on_after(0.2) as scope:
                await call()
            assert scope.cancelled_caught
            assert anyio.current_time() - started < 1.5
        locker.rollback()
        locker.close()
        with anyio.fail_after(10):
            for _ in range(5):
                assert await adapter.get_session_and_user(token) is not None
                user = await adapter.get_user("1")
                assert user is not None
