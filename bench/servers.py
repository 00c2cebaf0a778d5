"""The servers the HTTP figures measure, each in a subprocess on 127.0.0.1: ours under
uvicorn (the pure-Python stack or uvloop + httptools), the bare ASGI app on the same
stacks, and the Auth.js peer under node; pinned to :data:`SERVER_CORE` unless told not to.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from . import authjs
from .app import SECRET

ROOT = Path(__file__).resolve().parents[1]
SERVER_CORE, LOAD_CORE = 0, 1
START_TIMEOUT = 60
STACKS = {"h11 + asyncio": ("asyncio", "h11"), "httptools + uvloop": ("uvloop", "httptools")}
"""uvicorn as installed without the ``server`` extra, and with it: (event loop, parser)."""


def pinned(core: int | None, command: Sequence[str]) -> list[str]:
    """``command`` run on ``core`` only (with ``taskset``), when there are two cores to share."""
    if core is None or shutil.which("taskset") is None or (os.cpu_count() or 1) < 2:
        return list(command)
    return ["taskset", "-c", str(core), *command]


PORT = "{port}"
"""Stands for the server's port in a :class:`Server` command (it also gets ``PORT``)."""


@dataclass(frozen=True)
class Server:
    """A server to start: ``command`` with ``env`` added; ``pin``: on :data:`SERVER_CORE`."""

    command: Sequence[str]
    env: Mapping[str, str] = field(default_factory=dict)
    pin: bool = True


def uvicorn(
    app: str,
    stack: str,
    *,
    workers: int = 1,
    pin: bool = True,
    env: Mapping[str, str] | None = None,
) -> Server:
    """``app`` (a factory, ``module:function``) under uvicorn on ``stack`` (a :data:`STACKS`
    key) with ``env``."""
    loop, http = STACKS[stack]
    command = [sys.executable, "-m", "uvicorn", "--factory", app, "--loop", loop, "--http", http,
               "--workers", str(workers), "--host", "127.0.0.1", "--port", PORT,
               "--no-access-log", "--log-level", "warning"]  # fmt: skip
    return Server(command, env or {}, pin)


def authjs_peer(**env: str) -> Server:
    """``bench/authjs/server.mjs`` under node, with the bench's secret."""
    root = str(authjs.install())
    return Server(["node", str(authjs.SERVER)], {"AUTHJS_ROOT": root, "AUTH_SECRET": SECRET, **env})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def _started(server: Server, port: int) -> Iterator[subprocess.Popen[bytes]]:
    command = [part.replace(PORT, str(port)) for part in server.command]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PORT": str(port), **server.env}
    process = subprocess.Popen(pinned(SERVER_CORE if server.pin else None, command), env=env)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{process.args!r} did not start") from None
            time.sleep(0.05)


@contextmanager
def running(servers: Mapping[str, Server]) -> Iterator[dict[str, str]]:
    """Start every server (all at once), wait until each listens; yield name → base URL."""
    ports = {name: _free_port() for name in servers}
    with ExitStack() as stack:
        processes = {
            name: stack.enter_context(_started(server, ports[name]))
            for name, server in servers.items()
        }
        for name, process in processes.items():
            _wait_for(process, ports[name])
        yield {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
