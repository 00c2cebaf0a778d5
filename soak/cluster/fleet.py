"""The fleet: PostgreSQL, Redis, the OpenID Provider, the nodes and the load balancer, all on
127.0.0.1, started together and stopped together.

A :class:`Node` is one ``uvicorn --workers N`` process group, which the soak can stop
(``SIGTERM``: uvicorn finishes what it serves), kill (``SIGKILL`` to the whole group, as a
machine dying would) and start again with a new configuration (a secret roll).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx
import msgspec
from db_servers import PostgresServer, RedisServer, postgres_cluster, redis_instance
from live_server import ROOT, SUPPORT, free_port, uvicorn_command

from io_bindings.db.postgres import PostgresAdapter
from soak.memory import rss_kib
from tests.oidc_op.provider import OpenIDProvider, start_openid_provider

from .app import NODE_HEADER, PREFIXES, NodeConfig
from .balancer import Balancer, balancer

START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
SECRET_BYTES = 32


def new_secret() -> str:
    return secrets.token_hex(SECRET_BYTES)


@dataclass(frozen=True)
class FleetOptions:
    """The shape of the fleet and the lifetimes that make refreshes and renewals frequent."""

    nodes: int = 3
    workers: int = 2
    """uvicorn workers per node."""
    access_token_ttl: int = 20
    """Seconds the OP's access tokens live ..."""
    refresh_skew: int = 15
    """... of which the last ``refresh_skew`` are "due": refreshed on the next read."""
    update_age: int = 10
    revocation_cache_ttl: float = 0.5
    pool_size: int = 4


@dataclass
class Node:
    """One node: ``uvicorn soak.cluster.app:app --workers N`` on 127.0.0.1:``port``."""

    name: str
    port: int
    workers: int
    directory: Path
    config: NodeConfig
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    """``time.monotonic()`` of the last start."""
    starts: int = 0
    ready: bool = False
    """Started and answering (not being stopped)."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.directory / f"{self.name}.log"

    @property
    def log(self) -> str:
        """Everything the node's processes wrote, over all its starts."""
        return self.log_path.read_text(errors="replace")

    def start(self) -> None:
        """Write the configuration, start the process group, wait until it answers."""
        config_path = self.directory / f"{self.name}.json"
        config_path.write_bytes(msgspec.json.encode(self.config))
        command = [*uvicorn_command("soak.cluster.app:app", self.port)]
        command += ["--workers", str(self.workers)]
        pythonpath = os.pathsep.join((str(ROOT), str(SUPPORT)))
        env = {**os.environ, "PYTHONPATH": pythonpath, "PYTHONUNBUFFERED": "1"}
        env["FLEET_CONFIG"] = str(config_path)
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(  # noqa: S603 (our own command line)
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        self.started, self.starts = time.monotonic(), self.starts + 1
        deadline = time.monotonic() + START_TIMEOUT
        while not self.healthy():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not start:\n{self.log[-3000:]}")
            time.sleep(0.1)
        self.ready = True

    @property
    def stall(self) -> Path:
        """The fault hook's file (see :class:`soak.cluster.app.TaggedTransport`)."""
        return Path(self.config.stall)

    def healthy(self) -> bool:
        try:
            return httpx.get(f"{self.url}/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def _signal(self, number: int, timeout: float) -> None:
        self.ready = False
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, number)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def stop(self) -> None:
        """``SIGTERM``: uvicorn stops taking connections and finishes what it serves."""
        self._signal(signal.SIGTERM, STOP_TIMEOUT)

    def kill(self) -> None:
        """``SIGKILL`` to the master and every worker at once."""
        self._signal(signal.SIGKILL, STOP_TIMEOUT)

    def pids(self) -> list[int]:
        """The master and its workers."""
        if self.process is None:
            return []
        found, queue = [], [self.process.pid]
        while queue:
            pid = queue.pop()
            found.append(pid)
            with contextlib.suppress(OSError):
                for task in Path(f"/proc/{pid}/task").iterdir():
                    queue += [int(c) for c in (task / "children").read_text().split()]
        return found

    def rss_kib(self) -> int:
        """The resident memory of the master and its workers together."""
        total = 0
        for pid in self.pids():
            with contextlib.suppress(OSError, RuntimeError):
                total += rss_kib(pid)
        return total


@dataclass
class Fleet:
    """Everything running, and what the workload and the faults need to reach it."""

    url: str
    """The load balancer."""
    nodes: list[Node]
    balancer: Balancer
    postgres: PostgresServer
    databases: dict[str, str]
    """Strategy → DSN."""
    redis: RedisServer
    op: OpenIDProvider
    options: FleetOptions
    directory: Path
    secrets: list[str] = field(default_factory=list)

    def live_urls(self) -> list[str]:
        """The URLs of the nodes up now."""
        return [node.url for node in self.nodes if node.ready]

    def restart(self, node: Node, *, secrets: list[str] | None = None) -> None:
        """A rolling restart of ``node``: out of rotation, stopped, started (with ``secrets``
        if given), back in rotation."""
        self.balancer.set_state(node.name, "drain")
        self.balancer.set_state(node.name, "maint")
        node.stop()
        if secrets is not None:
            node.config = msgspec.structs.replace(node.config, secrets=secrets)
        node.start()
        self.balancer.set_state(node.name, "ready")


def _distinct_ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


async def _make_schema(dsn: str) -> None:
    adapter = PostgresAdapter(dsn)
    try:
        await adapter.get_user("0")  # opens the pool: the tables are made on first use
    finally:
        await adapter.aclose()


@contextlib.contextmanager
def running_fleet(options: FleetOptions) -> Iterator[Fleet]:
    """Start the fleet; stop everything when the block ends."""
    lb_port, *node_ports = _distinct_ports(options.nodes + 1)
    public = f"http://127.0.0.1:{lb_port}"
    with contextlib.ExitStack() as stack:
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="fleet-")))
        postgres = stack.enter_context(postgres_cluster())
        redis = stack.enter_context(redis_instance(persistent=True))
        op = stack.enter_context(
            start_openid_provider(
                [f"{public}/auth/callback/op"],
                ttl={"AccessToken": options.access_token_ttl},
                ledger=True,
                ledger_header=NODE_HEADER,
            )
        )
        databases = {strategy: postgres.create_database() for strategy in PREFIXES}
        for dsn in databases.values():
            anyio.run(_make_schema, dsn)
        clients = {}
        for strategy, prefix in PREFIXES.items():  # the OP's logout tokens: to one node, any
            client = op.register_client(
                [f"{public}{prefix}/auth/callback/op"],
                backchannel_logout_uri=f"{public}{prefix}/auth/backchannel-logout/op",
                backchannel_logout_session_required=True,
            )
            clients[strategy] = [client.client_id, client.client_secret or ""]
        fleet_secrets = [new_secret()]
        nodes = []
        for number, port in enumerate(node_ports):
            config = NodeConfig(
                node=f"node-{number}",
                secrets=fleet_secrets,
                public_url=public,
                postgres=databases,
                redis=redis.url,
                issuer=op.issuer,
                clients=clients,
                update_age=options.update_age,
                revocation_cache_ttl=options.revocation_cache_ttl,
                refresh_skew=options.refresh_skew,
                pool_size=options.pool_size,
                stall=str(directory / f"node-{number}.stall"),
            )
            nodes.append(Node(config.node, port, options.workers, directory, config))
        try:
            with ThreadPoolExecutor(len(nodes)) as starting:
                list(starting.map(Node.start, nodes))
            servers = [(node.name, node.port) for node in nodes]
            lb = stack.enter_context(balancer(lb_port, servers, directory))
            yield Fleet(
                public, nodes, lb, postgres, databases, redis, op, options, directory,
                fleet_secrets,
            )  # fmt: skip
        finally:
            for node in nodes:
                node.stop()
