"""Throw-away PostgreSQL, PgBouncer, MariaDB and Redis servers on 127.0.0.1, from the Debian
packages.

Used by the tests' fixtures (``tests/io_bindings/conftest.py``) and by ``make bench``.
``make system-deps`` installs the servers; when we are root, PostgreSQL and PgBouncer run
as ``postgres`` and MariaDB as ``mysql``.
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from live_server import free_port


def wait_for_port(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    """Block until something accepts connections on ``port`` (30 s at most)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


def find_program(name: str) -> str:
    """A PostgreSQL server program (newest installed version first) or one on ``PATH``."""
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
    control: Callable[..., None] | None = field(default=None, repr=False, compare=False)
    """Runs ``pg_ctl`` on the cluster: ``control("start")``, ``control("stop", mode)``."""

    def stop(self) -> None:
        """Shut the server down cleanly (clients cut off); :meth:`start` brings it back.

        A fast shutdown keeps every committed transaction: with ``synchronous_commit=off``
        an immediate one could lose the last ones, which is not the fault under test.
        """
        assert self.control is not None
        self.control("stop", "fast")

    def start(self) -> None:
        """Start the server again after :meth:`stop`, on the same port, data kept."""
        assert self.control is not None
        self.control("start")

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"

    def create_database(self) -> str:
        """A new empty database; its DSN."""
        import psycopg

        name = f"t_{uuid.uuid4().hex}"
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def drop_database(self, dsn: str) -> None:
        """Drop the database of ``dsn`` (made by :meth:`create_database`), connections and all."""
        import psycopg

        name = dsn.rpartition("dbname=")[2]
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def sqlalchemy_url(dsn: str) -> str:
    """The SQLAlchemy URL (psycopg 3) of a ``host=… port=… user=… dbname=…`` libpq DSN."""
    part = dict(item.split("=", 1) for item in dsn.split())
    return f"postgresql+psycopg://{part['user']}@{part['host']}:{part['port']}/{part['dbname']}"


@contextlib.contextmanager
def postgres_cluster() -> Iterator[PostgresServer]:
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

    def control(command: str, mode: str = "immediate") -> None:
        if command == "start":
            log = root / "server.log"
            run(pg_ctl, "-D", data, "-l", log, "-w", "-t", "60", "-o", options, "start")
        else:
            run(pg_ctl, "-D", data, "-m", mode, "-w", "stop")

    control("start")
    try:
        yield PostgresServer(port=port, control=control)
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # a test may have stopped it
            control("stop")
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class RedisServer:
    """A Redis server on 127.0.0.1:``port`` keeping its files in ``directory``; with
    ``persistent`` its data is in an append-only file, so it outlives :meth:`stop`."""

    port: int
    directory: Path
    persistent: bool = False
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server (again, after :meth:`stop`: same port, data kept if persistent)."""
        program = shutil.which("redis-server")
        if program is None:
            raise RuntimeError("redis-server is not installed: run `make system-deps`")
        args = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory)]
        args += ["--save", ""]
        args += ["--appendonly", "yes" if self.persistent else "no"]
        self.process = subprocess.Popen([program, *args], stdout=subprocess.DEVNULL)
        wait_for_port(self.port, self.process)

    def stop(self) -> None:
        """Shut the server down (``SIGTERM``: a persistent one writes its file first)."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


@contextlib.contextmanager
def redis_instance(*, persistent: bool = False) -> Iterator[RedisServer]:
    """A throw-away Redis server on 127.0.0.1 that a test may stop and start."""
    root = Path(tempfile.mkdtemp(prefix="sansio-auth-redis-"))
    server = RedisServer(free_port(), root, persistent)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A throw-away Redis server on 127.0.0.1, without persistence; yields its URL."""
    with redis_instance() as server:
        yield server.url


@dataclass(frozen=True)
class MariaDBServer:
    port: int
    control: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    """``control("stop")`` shuts the server down cleanly, ``control("start")`` starts it again."""

    def stop(self) -> None:
        """Shut the server down (clients cut off); :meth:`start` brings it back, data kept."""
        assert self.control is not None
        self.control("stop")

    def start(self) -> None:
        assert self.control is not None
        self.control("start")

    def url(self, database: str = "mysql") -> str:
        """A SQLAlchemy URL (PyMySQL) of ``database``."""
        return f"mysql+pymysql://root@127.0.0.1:{self.port}/{database}?charset=utf8mb4"

    def _execute(self, statement: str) -> None:
        import pymysql

        conn = pymysql.connect(host="127.0.0.1", port=self.port, user="root", password="")
        try:
            conn.cursor().execute(statement)
        finally:
            conn.close()

    def create_database(self) -> str:
        """A new empty database; its SQLAlchemy URL."""
        name = f"t_{uuid.uuid4().hex}"
        self._execute(f"CREATE DATABASE `{name}`")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of ``url`` (made by :meth:`create_database`)."""
        name = url.rpartition("/")[2].partition("?")[0]
        self._execute(f"DROP DATABASE IF EXISTS `{name}`")


@contextlib.contextmanager
def mariadb_server() -> Iterator[MariaDBServer]:
    """A throw-away MariaDB server on 127.0.0.1 (``root`` without a password), utf8mb4."""
    install, daemon = shutil.which("mariadb-install-db"), shutil.which("mariadbd")
    if install is None or daemon is None:
        daemon = daemon or "/usr/sbin/mariadbd"
        if install is None or not os.access(daemon, os.X_OK):
            raise RuntimeError("mariadb-server is not installed: run `make system-deps`")
    root = Path(tempfile.mkdtemp(prefix="sansio-auth-mariadb-"))
    user = ["--user=mysql"] if os.geteuid() == 0 else []
    if user:
        shutil.chown(root, "mysql", "mysql")
    data, port = root / "data", free_port()
    subprocess.run(
        [install, "--no-defaults", *user, f"--datadir={data}", "--skip-test-db",
         "--auth-root-authentication-method=normal"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    options = [
        "--no-defaults", *user, f"--datadir={data}", f"--port={port}",
        "--bind-address=127.0.0.1", f"--socket={root / 'mariadb.sock'}",
        f"--pid-file={root / 'mariadb.pid'}", "--skip-name-resolve", "--skip-log-bin",
        "--character-set-server=utf8mb4", "--collation-server=utf8mb4_unicode_ci",
        "--innodb-flush-log-at-trx-commit=0", "--innodb-buffer-pool-size=64M",
        "--max-connections=300",
    ]  # fmt: skip
    process: list[subprocess.Popen[bytes]] = []

    def control(command: str) -> None:
        if command == "start":
            with open(root / "server.log", "ab") as log:
                process[:] = [subprocess.Popen([daemon, *options], stdout=log, stderr=log)]
            wait_for_port(port, process[0])
        elif process and process[0].poll() is None:
            process[0].terminate()  # a clean shutdown
            process[0].wait(60)

    control("start")
    try:
        yield MariaDBServer(port=port, control=control)
    finally:
        control("stop")


@dataclass(frozen=True)
class PgBouncer:
    """A PgBouncer in front of a :class:`PostgresServer`, pooling by ``pool_mode``."""

    port: int
    postgres: PostgresServer

    def dsn(self, dbname: str = "postgres") -> str:
        """A DSN of database ``dbname`` through the pooler."""
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname}"

    def create_database(self) -> str:
        """A new empty database (made on the server itself); its DSN through the pooler."""
        return self.dsn(self.postgres.create_database().rpartition("dbname=")[2])

    def drop_database(self, dsn: str) -> None:
        """Drop the database of ``dsn`` (made by :meth:`create_database`)."""
        self.postgres.drop_database(self.postgres.dsn(dsn.rpartition("dbname=")[2]))


@contextlib.contextmanager
def pgbouncer(
    postgres: PostgresServer, *, pool_mode: str = "transaction", pool_size: int = 2
) -> Iterator[PgBouncer]:
    """A throw-away PgBouncer on 127.0.0.1 for every database of ``postgres``, ``pool_size``
    server connections per database (few: clients share them, as in production)."""
    program = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    if not os.access(program, os.X_OK):
        raise RuntimeError("pgbouncer is not installed: run `make system-deps`")
    root, port = Path(tempfile.mkdtemp(prefix="sansio-auth-pgbouncer-")), free_port()
    (root / "users.txt").write_text('"postgres" ""\n')
    (root / "pgbouncer.ini").write_text(
        f"""[databases]
* = host=127.0.0.1 port={postgres.port}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {root / "users.txt"}
pool_mode = {pool_mode}
default_pool_size = {pool_size}
max_client_conn = 500
ignore_startup_parameters = extra_float_digits
logfile = {root / "pgbouncer.log"}
pidfile = {root / "pgbouncer.pid"}
"""
    )
    as_user: list[str] = []
    if os.geteuid() == 0:  # PgBouncer refuses to run as root
        shutil.chown(root, "postgres", "postgres")
        for name in ("users.txt", "pgbouncer.ini"):
            shutil.chown(root / name, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    command = [*as_user, program, "--quiet", str(root / "pgbouncer.ini")]  # logs to its file
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield PgBouncer(port=port, postgres=postgres)
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(root, ignore_errors=True)
