"""The load balancer in front of the fleet: HAProxy from Debian, on 127.0.0.1.

Round robin per request (no stickiness: a browser's next request goes to the next node), a
liveness check of every node each 250 ms (two failures take it out, two passes bring it
back), and retries on the survivors: a request whose node refused the connection, or died
before answering, is sent again to another node (``retry-on`` + ``option redispatch``). That
is safe for the auth routes: a replayed ``GET`` changes nothing, and every ``POST`` is a
sign-in start, a sign-out or a revocation, each of which may be done twice.

The runtime API (a Unix socket) reports each node's counters and takes a node out of
rotation for a rolling restart (``drain`` then ``maint``, ``ready`` to bring it back).
"""

from __future__ import annotations

import contextlib
import csv
import re
import shutil
import socket
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from db_servers import wait_for_port

BACKEND = "nodes"
# a request's line: ... <status> <bytes> <cookies> <cookies> <termination flags>
# <connection counts>/<retries> <queues> "<method> <path> <version>"
_REQUEST = re.compile(r' (\d{3}) \d+ \S+ \S+ (\S{4}) \S+/(\S+) \S+ "(.*)"$')
CHECK_INTERVAL_MS = 250


def haproxy_program() -> str:
    """The ``haproxy`` binary (``/usr/sbin`` is not on every user's ``PATH``)."""
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise RuntimeError("haproxy is not installed: run `make system-deps`")
    return found


def configuration(port: int, servers: Sequence[tuple[str, int]], admin: Path) -> str:
    """The HAProxy configuration: ``servers`` are (name, port) on 127.0.0.1."""
    lines = [
        "global",
        "    maxconn 4096",
        f"    stats socket {admin} mode 600 level admin",
        "    log stdout format raw local0",
        "defaults",
        "    mode http",
        "    log global",
        "    option httplog",
        "    option dontlog-normal",  # what went wrong only: a log line per request costs
        "    timeout connect 1s",
        "    timeout client 60s",
        "    timeout server 60s",
        "    timeout queue 30s",
        "    timeout http-keep-alive 30s",
        "    retries 3",
        "    option redispatch 1",
        "    retry-on conn-failure empty-response response-timeout",
        "frontend fleet",
        f"    bind 127.0.0.1:{port}",
        f"    default_backend {BACKEND}",
        f"backend {BACKEND}",
        "    balance roundrobin",
        "    option httpchk GET /health",
        "    http-check expect status 200",
        f"    default-server check inter {CHECK_INTERVAL_MS}ms fall 2 rise 2",
        *(f"    server {name} 127.0.0.1:{server_port}" for name, server_port in servers),
    ]
    return "\n".join(lines) + "\n"


@dataclass
class Balancer:
    """A running HAProxy: its URL and runtime API."""

    url: str
    admin: Path
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def log(self) -> str:
        """Every request (HAProxy's ``httplog`` format) and HAProxy's notices."""
        return self.log_path.read_text(errors="replace")

    def unusual(self) -> list[str]:
        """The requests that were retried, failed or answered 5xx (HAProxy logs only those:
        ``dontlog-normal``): each as its log line."""
        found = []
        for line in self.log.splitlines():
            request = _REQUEST.search(line)
            if request is None:
                continue
            status, flags, retries, what = request.groups()
            if what == "<BADREQ>" and flags.startswith("CR"):
                continue  # a connection closed before any request (a check that it listens)
            if retries.startswith("+") or flags != "----" or status.startswith("5"):
                found.append(line)
        return found

    def command(self, line: str) -> str:
        """One runtime API command; its answer."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(str(self.admin))
            sock.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def servers(self) -> dict[str, dict[str, str]]:
        """Each node's row of ``show stat`` (``status``, ``stot``, ``wretr``, ``wredis``,
        ``hrsp_5xx``, ``chkdown``, ``downtime``, ...)."""
        text = self.command("show stat").lstrip("# ")
        rows = csv.DictReader(text.splitlines())
        return {
            row["svname"]: row
            for row in rows
            if row["pxname"] == BACKEND and row["svname"] not in ("FRONTEND", "BACKEND")
        }

    def set_state(self, server: str, state: str) -> None:
        """``ready``, ``drain`` (no new requests) or ``maint`` (out of rotation)."""
        answer = self.command(f"set server {BACKEND}/{server} state {state}")
        if answer.strip():
            raise RuntimeError(f"haproxy refused to set {server} {state}: {answer}")


@contextlib.contextmanager
def balancer(port: int, servers: Sequence[tuple[str, int]], directory: Path) -> Iterator[Balancer]:
    """HAProxy on ``port`` in front of ``servers`` until the block ends (its files in
    ``directory``)."""
    admin = directory / "haproxy.sock"
    config = directory / "haproxy.cfg"
    config.write_text(configuration(port, servers, admin))
    log_path = directory / "haproxy.log"
    log = log_path.open("wb")
    command = [haproxy_program(), "-db", "-f", str(config)]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)  # noqa: S603 (ours)
    try:
        wait_for_port(port, process)
        yield Balancer(f"http://127.0.0.1:{port}", admin, process, log_path)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
