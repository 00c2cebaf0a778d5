"""Start a real server (or any program that serves HTTP) in a subprocess, for e2e tests.

>>> with serve(uvicorn_command("e2e_app:app", port), port) as server:
...     httpx.get(server.url + "/auth/csrf")

The process gets ``PYTHONPATH`` with the repository root and ``tests/support`` so it
imports the code under test and the test app modules. Its output goes to a log file,
readable as :attr:`LiveServer.log` (and printed when start-up fails).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = Path(__file__).resolve().parent
START_TIMEOUT = 30.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (right now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def uvicorn_command(app: str, port: int) -> list[str]:
    """Serve ``module:attr`` with uvicorn (asyncio)."""
    return [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port),
            "--no-access-log", "--log-level", "warning"]  # fmt: skip


def hypercorn_trio_command(app: str, port: int) -> list[str]:
    """Serve ``module:attr`` with hypercorn's trio worker."""
    return [sys.executable, "-m", "hypercorn", "-k", "trio", "-b", f"127.0.0.1:{port}",
            "--log-level", "warning", app]  # fmt: skip


SERVERS = {"uvicorn": uvicorn_command, "hypercorn-trio": hypercorn_trio_command}
"""Server name → command builder, for parametrizing tests over both servers."""


@dataclass
class LiveServer:
    """A running server process and where it listens."""

    process: subprocess.Popen[bytes]
    url: str
    log_path: Path

    @property
    def log(self) -> str:
        """Everything the process wrote so far (stdout and stderr)."""
        return self.log_path.read_text(errors="replace")


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@contextmanager
def serve(
    command: Sequence[str],
    port: int,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path = ROOT,
    process_group: bool = False,
) -> Iterator[LiveServer]:
    """Run ``command`` (in ``cwd``) until it accepts connections on ``port``; stop it
    afterwards. With ``process_group``, in a process group of its own, stopped whole: for a
    shell script, or a server that starts workers or a reloader."""
    pythonpath = os.pathsep.join(
        p for p in (str(ROOT), str(SUPPORT), os.environ.get("PYTHONPATH", "")) if p
    )
    full_env = {**os.environ, "PYTHONPATH": pythonpath, "PYTHONUNBUFFERED": "1", **(env or {})}
    with tempfile.NamedTemporaryFile(prefix="server-", suffix=".log", delete=False) as log:
        log_path = Path(log.name)
        process = subprocess.Popen(
            list(command), cwd=cwd, env=full_env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=process_group,
        )  # fmt: skip
    server = LiveServer(process, f"http://127.0.0.1:{port}", log_path)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{command[:4]} did not start:\n{server.log}")
            time.sleep(0.05)
        yield server
    finally:
        _stop(process, signal.SIGTERM, process_group)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _stop(process, signal.SIGKILL, process_group)
            process.wait()
        log_path.unlink(missing_ok=True)


def _stop(process: subprocess.Popen[bytes], sig: signal.Signals, group: bool) -> None:
    if group:
        os.killpg(process.pid, sig)  # the group the process leads: all it started
    else:
        process.send_signal(sig)


def csrf_token(client: Any, base: str = "/auth") -> str:
    """The CSRF token the auth routes under ``base`` give ``client`` (an ``httpx.Client``;
    it keeps the matching cookie)."""
    token: str = client.get(f"{base}/csrf").json()["csrfToken"]
    return token


def submit_sign_in_form(client: Any, page: str, route: str, **fields: str) -> Any:
    """Post the form of the engine's sign-in ``page`` whose action ends with ``route``
    (``/callback/credentials``, ``/signin/op``) as a browser does: its CSRF token and
    ``fields``, redirects followed. The last response."""
    action = re.search(rf'action="([^"]*{re.escape(route)})"', page)
    token = re.search(r'name="csrfToken" value="([^"]+)"', page)
    assert action is not None, f"no form for {route} in {page}"
    assert token is not None, page
    return client.post(action[1], data={"csrfToken": token[1], **fields}, follow_redirects=True)
