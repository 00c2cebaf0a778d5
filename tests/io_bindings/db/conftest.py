"""Fixtures for the adapter tests: one adapter per kind.

An async test of a store runs on asyncio and on trio where the store has code of its own
for asyncio, and SQLite's for the worker-thread hop the others share (:data:`LOOP_SPECIFIC`);
every other store runs the same code on both loops, so its tests run on asyncio only. The
real PostgreSQL, PgBouncer and Redis servers come from ``tests/io_bindings/conftest.py``
(started once per test session); each test gets its own PostgreSQL database (direct, and
through PgBouncer in transaction pooling mode) and its own Redis key prefix.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import django_db
import pytest
from db_servers import sqlalchemy_url as sqlalchemy_url_of
from npm_cache import require_npm

from io_bindings.db._base import StoreAdapter

ADAPTER_KINDS = [
    pytest.param("memory"),
    pytest.param("sqlite"),
    pytest.param("postgres", marks=pytest.mark.e2e),
    pytest.param("pgbouncer", marks=pytest.mark.e2e),  # PostgreSQL behind transaction pooling
    pytest.param("redis", marks=pytest.mark.e2e),
    pytest.param("sqlalchemy-sqlite"),
    pytest.param("sqlalchemy-postgres", marks=pytest.mark.e2e),
    pytest.param("sqlalchemy-mariadb", marks=pytest.mark.e2e),
    pytest.param("django-sqlite"),
    pytest.param("django-postgres", marks=pytest.mark.e2e),
]


LOOP_SPECIFIC = frozenset({"postgres", "pgbouncer", "sqlalchemy-postgres", "sqlite"})
"""The stores with a path of their own on asyncio (the session check without a thread), and
SQLite for the worker-thread hop (and its cancellation) that every other store shares."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out trio's run of a store's test when the store's code is the same on both
    loops."""
    kept, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        same = params.get("adapter_kind", "postgres") not in LOOP_SPECIFIC
        (dropped if params.get("anyio_backend") == "trio" and same else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=ADAPTER_KINDS)
def adapter_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_adapter(
    adapter_kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[[], StoreAdapter]:
    """Makes adapters of this test's kind, all on this test's one database."""
    if adapter_kind == "memory":
        from io_bindings.db.memory import MemoryAdapter

        return MemoryAdapter
    if adapter_kind == "sqlite":
        from io_bindings.db.sqlite import SQLiteAdapter

        return lambda: SQLiteAdapter(tmp_path / "auth.db")
    if adapter_kind.startswith("sqlalchemy-"):
        return sqlalchemy_adapters(adapter_kind.removeprefix("sqlalchemy-"), request, tmp_path)
    if adapter_kind.startswith("django-"):
        return django_adapters(adapter_kind.removeprefix("django-"), request, tmp_path)
    if adapter_kind == "postgres":
        from io_bindings.db.postgres import PostgresAdapter

        dsn = request.getfixturevalue("postgres_dsn")
        return lambda: PostgresAdapter(dsn)
    if adapter_kind == "pgbouncer":
        from io_bindings.db.postgres import PostgresAdapter

        dsn = request.getfixturevalue("pgbouncer_dsn")
        return lambda: PostgresAdapter(dsn, prepare=False)
    from io_bindings.db.redis import RedisAdapter

    url, prefix = request.getfixturevalue("redis_url"), f"test:{uuid.uuid4().hex}:"
    return lambda: RedisAdapter(url, key_prefix=prefix)


def sqlalchemy_url(database: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A SQLAlchemy URL of an empty database of ``database`` ("sqlite", "postgres", "mariadb")."""
    if database == "sqlite":
        return f"sqlite:///{tmp_path / 'auth.db'}"
    if database == "postgres":
        return sqlalchemy_url_of(request.getfixturevalue("postgres_dsn"))
    url: str = request.getfixturevalue("mariadb_url")
    return url


def sqlalchemy_adapters(
    database: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[[], StoreAdapter]:
    """Makes SQLAlchemy adapters on one new database (tables made by the first to open)."""
    from io_bindings.db.sqlalchemy import SQLAlchemyAdapter

    url = sqlalchemy_url(database, request, tmp_path)
    return lambda: SQLAlchemyAdapter(url, create_tables=True)


def django_adapters(
    database: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[[], StoreAdapter]:
    """Makes Django ORM adapters on one new migrated database, under an alias of its own
    (the test project's user model: Django's ``auth.User``, or ``DJANGO_SETTINGS_MODULE``'s)."""
    from io_bindings.django.orm import DjangoAdapter

    alias = django_db.fresh_database(database, request, tmp_path)
    return lambda: DjangoAdapter(alias)


@pytest.fixture
async def adapter(make_adapter: Callable[[], StoreAdapter]) -> AsyncIterator[StoreAdapter]:
    async with make_adapter() as opened:
        yield opened


PG_ADAPTER_PACKAGES = {"@auth/pg-adapter": "1.11.3", "pg": "8.23.1"}

AUTHJS_PG_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const root = `${process.env.AUTHJS_PG}/node_modules`;
const pg = createRequire(`${root}/`)("pg");
const { default: PostgresAdapter } = await import(
  pathToFileURL(`${root}/@auth/pg-adapter/index.js`).href
);

const input = JSON.parse(readFileSync(0, "utf8"));
const pool = new pg.Pool({ connectionString: input.url, max: 2 });
const adapter = PostgresAdapter(pool);
const day = 24 * 60 * 60 * 1000;

const ops = {
  // What an Auth.js app writes on an OAuth sign-up with database sessions and an e-mail sign-in.
  seed: async () => {
    const user = await adapter.createUser({
      name: "Ada", email: "ada@example.com", emailVerified: new Date(input.now), image: null,
    });
    const account = await adapter.linkAccount({
      userId: user.id, type: "oauth", provider: "github", providerAccountId: "gh-1",
      access_token: "at", token_type: "bearer", id_token: "it", refresh_token: "rt",
      scope: "read:user", expires_at: 1900000000, session_state: "ss",
    });
    const session = await adapter.createSession({
      sessionToken: "js-session", userId: user.id, expires: new Date(input.now + day),
    });
    await adapter.createVerificationToken({
      identifier: "ada@example.com", token: "js-token", expires: new Date(input.now + day),
    });
    return { user, account, session };
  },
  // What an Auth.js app reads back of records this library wrote.
  read: async () => ({
    user: await adapter.getUser(input.userId),
    byEmail: await adapter.getUserByEmail(input.email),
    byAccount: await adapter.getUserByAccount(
      { provider: input.provider, providerAccountId: input.providerAccountId }),
    sessionAndUser: await adapter.getSessionAndUser(input.sessionToken),
    token: await adapter.useVerificationToken({ identifier: input.email, token: input.token }),
    tokenAgain: await adapter.useVerificationToken({ identifier: input.email, token: input.token }),
  }),
};

try {
  process.stdout.write("\n" + JSON.stringify(await ops[input.op]()) + "\n");
} finally {
  await pool.end();
}
"""


@pytest.fixture(scope="session")
def authjs_pg(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Awaitable[Any]]:
    """Runs an operation of Auth.js's own ``@auth/pg-adapter`` in Node (installed once).

    ``await authjs_pg(op, url=<postgresql URL>, **payload)`` is the operation's JSON result.
    """
    prefix = require_npm("authjs-pg-adapter", PG_ADAPTER_PACKAGES)
    script = tmp_path_factory.mktemp("authjs-pg") / "authjs-pg.mjs"
    script.write_text(AUTHJS_PG_SCRIPT)

    async def run(op: str, **payload: Any) -> Any:
        done = await anyio.run_process(
            ["node", str(script)],
            input=json.dumps({"op": op, **payload}).encode(),
            env={**os.environ, "AUTHJS_PG": str(prefix)},
        )
        return json.loads(done.stdout.decode().strip().splitlines()[-1])

    return run
