"""Fixtures for the adapter tests: real PostgreSQL and Redis servers, one adapter per kind.

Every async test runs on asyncio and on trio. The servers are started once per
test session from the Debian packages (``make system-deps`` installs them);
each test gets its own PostgreSQL database and its own Redis key prefix.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from io_bindings.db._base import StoreAdapter

ADAPTER_KINDS = [
    pytest.param("memory"),
    pytest.param("sqlite"),
    pytest.param("postgres", marks=pytest.mark.e2e),
    pytest.param("redis", marks=pytest.mark.e2e),
]


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


def find_program(name: str) -> str:
    for directory in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(os.path.join(directory, name), os.X_OK):
            return os.path.join(directory, name)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed: run `make system-deps`")
    return found


@dataclass(frozen=True)
class PostgresServer:
    port: int

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throw-away PostgreSQL cluster on 127.0.0.1 (run as ``postgres`` when we are root)."""
    initdb, pg_ctl = find_program("initdb"), find_program("pg_ctl")
    root = Path(tempfile.mkdtemp(prefix="sansio-auth-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = root / "data", free_port()

    def run(*args: str | Path) -> None:
        subprocess.run([*as_user, *map(str, args)], check=True, capture_output=True)

    run(initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
    options = (
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    run(pg_ctl, "-D", data, "-l", root / "server.log", "-w", "-t", "60", "-o", options, "start")
    try:
        yield PostgresServer(port=port)
    finally:
        run(pg_ctl, "-D", data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A throw-away Redis server on 127.0.0.1, without persistence."""
    program = shutil.which("redis-server")
    if program is None:
        raise RuntimeError("redis-server is not installed: run `make system-deps`")
    root, port = tempfile.mkdtemp(prefix="sansio-auth-redis-"), free_port()
    args = ["--port", str(port), "--bind", "127.0.0.1", "--dir", root]
    args += ["--save", "", "--appendonly", "no"]
    process = subprocess.Popen([program, *args], stdout=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_dsn(postgres_server: PostgresServer) -> Iterator[str]:
    """The DSN of an empty database of its own for this test."""
    import psycopg

    name = f"t_{uuid.uuid4().hex}"
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield postgres_server.dsn(name)
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


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
    if adapter_kind == "postgres":
        from io_bindings.db.postgres import PostgresAdapter

        dsn = request.getfixturevalue("postgres_dsn")
        return lambda: PostgresAdapter(dsn)
    from io_bindings.db.redis import RedisAdapter

    url, prefix = request.getfixturevalue("redis_url"), f"test:{uuid.uuid4().hex}:"
    return lambda: RedisAdapter(url, key_prefix=prefix)


@pytest.fixture
async def adapter(make_adapter: Callable[[], StoreAdapter]) -> AsyncIterator[StoreAdapter]:
    async with make_adapter() as opened:
        yield opened
