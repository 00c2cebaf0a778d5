"""What the command lines (``demo``, ``demo_op``, ``record``) share: a port bound up front, so
that a busy one is one line and a non-zero exit, and uvicorn run until Ctrl-C without a
traceback."""

from __future__ import annotations

import contextlib
import socket
from typing import Any


def bind(host: str, port: int, *, program: str, pick_another: str) -> socket.socket:
    """A socket bound to ``host``:``port`` (uvicorn listens on it once the app is ready); a
    busy port ends the program in one line naming how to ``pick_another``."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: TIME_WAIT is free
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise SystemExit(
            f"{program}: port {port} on {host} is not free ({err.strerror}); "
            f"pick another with {pick_another}"
        ) from None
    return sock


def serve_until_stopped(app: Any, sock: socket.socket, **options: Any) -> None:
    """Serve ``app`` with uvicorn on ``sock`` until Ctrl-C (or SIGTERM). No access log: the
    callback URLs carry authorization codes and e-mail tokens."""
    import uvicorn

    config = uvicorn.Config(app, access_log=False, **options)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn has shut down, then re-raised it
        uvicorn.Server(config).run(sockets=[sock])
