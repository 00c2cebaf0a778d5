"""The servers the HTTP figures measure, each in a subprocess on 127.0.0.1: ours under
uvicorn (the pure-Python stack or uvloop + httptools), the bare ASGI app on the same
stacks, and the Auth.js peer under node; pinned to :data:`SERVER_CORE` unless told not to.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Hashable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from live_server import free_port, serve

from . import authjs
from .app import SECRET

K = TypeVar("K", bound=Hashable)
SERVER_CORE, LOAD_CORE = 0, 1
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
    """A server to start: ``command`` with ``env`` added; ``pin``: on :data:`SERVER_CORE`;
    ``port``: where it listens (default: a free port), for a server whose address must be
    known before it starts (an OAuth client's redirect URI)."""

    command: Sequence[str]
    env: Mapping[str, str] = field(default_factory=dict)
    pin: bool = True
    port: int | None = None


def uvicorn(
    app: str,
    stack: str,
    *,
    workers: int = 1,
    pin: bool = True,
    env: Mapping[str, str] | None = None,
    port: int | None = None,
) -> Server:
    """``app`` (a factory, ``module:function``) under uvicorn on ``stack`` (a :data:`STACKS`
    key) with ``env``."""
    loop, http = STACKS[stack]
    command = [sys.executable, "-m", "uvicorn", "--factory", app, "--loop", loop, "--http", http,
               "--workers", str(workers), "--host", "127.0.0.1", "--port", PORT,
               "--no-access-log", "--log-level", "warning"]  # fmt: skip
    return Server(command, env or {}, pin, port)


def authjs_peer(**env: str) -> Server:
    """``bench/authjs/server.mjs`` under node, with the bench's secret."""
    root = str(authjs.install())
    return Server(["node", str(authjs.SERVER)], {"AUTHJS_ROOT": root, "AUTH_SECRET": SECRET, **env})


def copies_of(servers: Mapping[K, Server], copies: int) -> dict[tuple[K, int], Server]:
    """Each of ``servers`` ``copies`` times, as ``(key, copy)``: one process each (see
    :attr:`~bench.plan.Plan.copies`; :func:`~bench.load.pooled` joins their rounds)."""
    return {(key, copy): server for key, server in servers.items() for copy in range(copies)}


@contextmanager
def running(servers: Mapping[K, Server]) -> Iterator[dict[K, str]]:
    """Start every server and wait until it listens; yield its key → base URL."""
    urls = {}
    with ExitStack() as stack:
        for name, server in servers.items():
            port = server.port or free_port()
            command = [part.replace(PORT, str(port)) for part in server.command]
            env = {"PORT": str(port), **server.env}
            core = SERVER_CORE if server.pin else None
            urls[name] = stack.enter_context(serve(pinned(core, command), port, env=env)).url
        yield urls
