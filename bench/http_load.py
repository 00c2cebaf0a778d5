"""``GET /auth/session`` over HTTP: uvicorn in a subprocess, keep-alive clients in this one.

The client is a few lines of asyncio streams (one request in flight per connection,
no pipelining), so that the server, not the client, is what gets measured.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .app import USER, session_cookie

ROOT = Path(__file__).resolve().parents[1]
CONNECTIONS = 16
WARM_UP = 0.5


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def uvicorn_server(update_age: int) -> Iterator[int]:
    """Serve ``bench.app:create_app`` with uvicorn on a free port; yield the port."""
    port = _free_port()
    command = [sys.executable, "-m", "uvicorn", "--factory", "bench.app:create_app",
               "--host", "127.0.0.1", "--port", str(port), "--no-access-log",
               "--log-level", "warning"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCH_UPDATE_AGE": str(update_age)}
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("uvicorn did not start") from None
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


async def _get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> bytes:
    """Send one request, read one response; return its body (fail unless it is a 200)."""
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200 "):
        raise RuntimeError(f"unexpected response: {head[:200]!r}")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return await reader.readexactly(length)


async def _client(port: int, raw: bytes, start: float, stop: float, done: list[int]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        body = await _get(reader, writer, raw)
        if json.loads(body)["user"]["name"] != USER["name"]:
            raise RuntimeError(f"not a session: {body!r}")
        while (now := time.perf_counter()) < stop:
            await _get(reader, writer, raw)
            if now >= start:
                done[0] += 1
    finally:
        writer.close()


async def _load(port: int, seconds: float) -> float:
    raw = (
        f"GET /auth/session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Cookie: {session_cookie()}\r\n\r\n"
    ).encode()
    done = [0]
    start = time.perf_counter() + WARM_UP
    stop = start + seconds
    await asyncio.gather(*(_client(port, raw, start, stop, done) for _ in range(CONNECTIONS)))
    return done[0] / seconds


def session_requests_per_second(update_age: int, seconds: float) -> float:
    """``GET /auth/session`` requests per second against uvicorn, after a short warm-up."""
    with uvicorn_server(update_age) as port:
        return asyncio.run(_load(port, seconds))
