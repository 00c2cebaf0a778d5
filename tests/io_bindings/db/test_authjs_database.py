"""Every SQL store opens a database made from Auth.js's published ``@auth/pg-adapter`` schema,
with rows Auth.js itself wrote: the store's own methods work on it at once (no other store
having opened it before), what Auth.js wrote reads back, and Auth.js reads what we wrote."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from db_servers import sqlalchemy_url
from psycopg.conninfo import conninfo_to_dict

from io_bindings.db._base import StoreAdapter
from io_bindings.db.postgres import PostgresAdapter
from io_bindings.db.sqlalchemy import SQLAlchemyAdapter

pytestmark = pytest.mark.anyio

NOW = datetime.now(UTC).replace(microsecond=0)

# The schema as Auth.js's PostgreSQL adapter page publishes it: no foreign keys, no unique
# constraints beyond the primary keys.
AUTHJS_SCHEMA = (
    """CREATE TABLE verification_token (
        identifier TEXT NOT NULL,
        expires TIMESTAMPTZ NOT NULL,
        token TEXT NOT NULL,
        PRIMARY KEY (identifier, token)
    )""",
    """CREATE TABLE accounts (
        id SERIAL,
        "userId" INTEGER NOT NULL,
        type VARCHAR(255) NOT NULL,
        provider VARCHAR(255) NOT NULL,
        "providerAccountId" VARCHAR(255) NOT NULL,
        refresh_token TEXT,
        access_token TEXT,
        expires_at BIGINT,
        id_token TEXT,
        scope TEXT,
        session_state TEXT,
        token_type TEXT,
        PRIMARY KEY (id)
    )""",
    """CREATE TABLE sessions (
        id SERIAL,
        "userId" INTEGER NOT NULL,
        expires TIMESTAMPTZ NOT NULL,
        "sessionToken" VARCHAR(255) NOT NULL,
        PRIMARY KEY (id)
    )""",
    """CREATE TABLE users (
        id SERIAL,
        name VARCHAR(255),
        email VARCHAR(255),
        "emailVerified" TIMESTAMPTZ,
        image TEXT,
        PRIMARY KEY (id)
    )""",
)

STORES: dict[str, Callable[[str], StoreAdapter]] = {
    "postgres": PostgresAdapter,
    "sqlalchemy-threads": lambda dsn: SQLAlchemyAdapter(sqlalchemy_url(dsn), async_engine=False),
    "sqlalchemy-asyncio": lambda dsn: SQLAlchemyAdapter(sqlalchemy_url(dsn)),
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SQLAlchemy store's asyncio engine runs only there


@pytest.mark.e2e
@pytest.mark.parametrize("store", STORES)
async def test_a_store_opens_a_database_auth_js_made(
    store: str, postgres_dsn: str, authjs_pg: Callable[..., Awaitable[Any]]
) -> None:
    with psycopg.connect(postgres_dsn) as conn:
        for statement in AUTHJS_SCHEMA:
            conn.execute(statement.encode())
    params = conninfo_to_dict(postgres_dsn)
    url = f"postgresql://postgres@127.0.0.1:{params['port']}/{params['dbname']}"
    js = await authjs_pg("seed", url=url, now=int(NOW.timestamp() * 1000))
    ada_id = str(js["user"]["id"])

    async with STORES[store](postgres_dsn) as adapter:
        # What Auth.js wrote reads back.
        found = await adapter.get_session_and_user("js-session")
        assert found is not None
        assert found["session"]["user_id"] == ada_id
        assert found["session"]["expires"] == NOW + timedelta(days=1)
        assert found["user"]["email"] == "ada@example.com"
        assert found["user"]["email_verified"] == NOW
        assert await adapter.get_user_by_account("github", "gh-1") == found["user"]
        account = await adapter.get_account("github", "gh-1")
        assert account is not None
        assert (account["refresh_token"], account["expires_at"]) == ("rt", 1900000000)
        token = await adapter.use_verification_token("ada@example.com", "js-token")
        assert token is not None
        assert token["expires"] == NOW + timedelta(days=1)

        # The session methods, on a session of ours and on Auth.js's.
        grace = await adapter.create_user(
            {"id": "", "email": "grace@example.com", "email_verified": NOW, "name": "Grace"}
        )
        linked = await adapter.link_account(
            {
                "user_id": grace["id"],
                "type": "oidc",
                "provider": "google",
                "provider_account_id": "g-1",
                "refresh_token": "grace-rt",
            }
        )
        assert await adapter.get_user_by_account("google", "g-1") == grace
        assert await adapter.get_account("google", "g-1") == linked
        later = NOW + timedelta(days=30)
        created = await adapter.create_session(
            {"session_token": "py-session", "user_id": grace["id"], "expires": later, "sid": "s1"}
        )
        assert created["sid"] == "s1"
        found = await adapter.get_session_and_user("py-session")
        assert found is not None
        assert (found["session"]["expires"], found["user"]) == (later, grace)
        updated = await adapter.update_session({"session_token": "js-session", "expires": later})
        assert updated is not None
        assert updated["expires"] == later
        deleted = await adapter.delete_session("py-session")
        assert deleted is not None
        assert deleted["session_token"] == "py-session"
        assert await adapter.get_session_and_user("py-session") is None
        await adapter.create_session(
            {"session_token": "py-session-2", "user_id": grace["id"], "expires": later}
        )
        await adapter.create_verification_token(
            {"identifier": "grace@example.com", "token": "py-token", "expires": later}
        )

    # Auth.js still reads the database, and what we wrote.
    read = await authjs_pg(
        "read",
        url=url,
        userId=grace["id"],
        email="grace@example.com",
        provider="google",
        providerAccountId="g-1",
        sessionToken="py-session-2",
        token="py-token",
    )
    assert read["user"]["email"] == read["byAccount"]["email"] == "grace@example.com"
    assert read["sessionAndUser"]["session"]["userId"] == int(grace["id"])
    assert read["token"]["token"] == "py-token"
    ada = await authjs_pg(
        "read",
        url=url,
        userId=ada_id,
        email="ada@example.com",
        provider="github",
        providerAccountId="gh-1",
        sessionToken="js-session",
        token="none",
    )
    assert ada["sessionAndUser"]["session"]["expires"] == later.isoformat().replace(
        "+00:00", ".000Z"
    )

    # The database each store migrated is one every other store opens.
    for other in STORES:
        async with STORES[other](postgres_dsn) as again:
            assert await again.get_session_and_user("py-session-2") is not None, other


async def test_sqlalchemy_on_sqlite_adds_what_auth_js_tables_lack(tmp_path: Path) -> None:
    """Auth.js's tables on SQLite (ids AUTOINCREMENT, as the store requires there)."""
    path = tmp_path / "authjs.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(255), "
            'email VARCHAR(255), "emailVerified" DATETIME, image TEXT);'
            'CREATE TABLE sessions (id INTEGER PRIMARY KEY AUTOINCREMENT, "userId" INTEGER '
            'NOT NULL, expires DATETIME NOT NULL, "sessionToken" VARCHAR(255) NOT NULL);'
            "INSERT INTO users (email) VALUES ('ada@example.com');"
            'INSERT INTO sessions ("userId", expires, "sessionToken") '
            "VALUES (1, '2099-01-01 00:00:00.000000', 'js-session');"
        )
    conn.close()
    later = datetime(2099, 2, 1, tzinfo=UTC)
    async with SQLAlchemyAdapter(f"sqlite:///{path}") as adapter:
        found = await adapter.get_session_and_user("js-session")
        assert found is not None
        assert found["user"]["email"] == "ada@example.com"
        await adapter.create_session(
            {"session_token": "py-session", "user_id": "1", "expires": later, "sid": "s1"}
        )
        assert await adapter.delete_sessions_by_sid("s1") == 1
        assert await adapter.update_session({"session_token": "js-session", "expires": later})
        assert await adapter.delete_session("js-session") is not None
        assert await adapter.increment_counter("k", 60, later) == (1, later + timedelta(seconds=60))
