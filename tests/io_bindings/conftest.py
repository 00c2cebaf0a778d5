"""Real servers for the e2e tests: uvicorn (asyncio) and hypercorn (trio) on 127.0.0.1, and
PostgreSQL, PgBouncer, MariaDB and Redis (started once per test session, for the adapter and
database tests)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import django_db
import httpx
import pytest
from db_servers import (
    MariaDBServer,
    PgBouncer,
    PostgresServer,
    mariadb_server,
    pgbouncer,
    postgres_cluster,
    redis_server,
)
from live_server import SERVERS, LiveServer, free_port, serve


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    """``e2e_app:app`` served by each server in turn; fails if it ever answered with a crash."""
    port = free_port()
    command = SERVERS[request.param](port=port, app="e2e_app:app")
    with serve(command, port) as live:
        yield live
        log = live.log
    assert "unexpected failure serving" not in log, log
    for crash in ("Exception in ASGI application", "Error in ASGI Framework"):
        assert crash not in log, log


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    """A browser-like client of ``server`` with its own cookie jar; redirects are not followed."""
    with httpx.Client(base_url=server.url, timeout=10) as http:
        yield http


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The demo (``python -m io_bindings.demo``) on a free port, its data in a temporary dir."""
    port = free_port()
    command = [sys.executable, "-m", "io_bindings.demo"]
    env = {"PORT": str(port), "DEMO_DIR": str(tmp_path_factory.mktemp("demo"))}
    with serve(command, port, env=env) as live:
        yield live


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throw-away PostgreSQL cluster on 127.0.0.1."""
    with postgres_cluster() as server:
        yield server


@pytest.fixture
def postgres_dsn(postgres_server: PostgresServer) -> Iterator[str]:
    """The DSN of an empty database of its own for this test."""
    dsn = postgres_server.create_database()
    yield dsn
    postgres_server.drop_database(dsn)


@pytest.fixture(scope="session")
def pgbouncer_server(postgres_server: PostgresServer) -> Iterator[PgBouncer]:
    """PgBouncer in transaction pooling mode in front of the PostgreSQL cluster, two server
    connections per database."""
    with pgbouncer(postgres_server) as server:
        yield server


@pytest.fixture
def pgbouncer_dsn(pgbouncer_server: PgBouncer) -> Iterator[str]:
    """The DSN, through PgBouncer, of an empty database of its own for this test."""
    dsn = pgbouncer_server.create_database()
    yield dsn
    pgbouncer_server.drop_database(dsn)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A throw-away Redis server on 127.0.0.1, without persistence."""
    with redis_server() as url:
        yield url


@pytest.fixture(scope="session")
def mariadb() -> Iterator[MariaDBServer]:
    """A throw-away MariaDB server on 127.0.0.1."""
    with mariadb_server() as server:
        yield server


@pytest.fixture
def mariadb_url(mariadb: MariaDBServer) -> Iterator[str]:
    """The SQLAlchemy URL of an empty database of its own for this test."""
    url = mariadb.create_database()
    yield url
    mariadb.drop_database(url)


@pytest.fixture(scope="session")
def django_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file with the Django test project's tables (migrated once), to copy."""
    django_db.configure()
    return django_db.sqlite_template(tmp_path_factory.mktemp("django"))


@pytest.fixture(scope="session")
def django_postgres_template(postgres_server: PostgresServer) -> str:
    """A PostgreSQL database with the Django test project's tables (migrated once), to copy."""
    django_db.configure()
    return django_db.postgres_template(postgres_server)
