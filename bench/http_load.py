"""The fallback load generator when wrk is not installed: ``python -m bench.http_load URL
SECONDS`` (the ``Cookie`` header in ``BENCH_COOKIE``) prints ``GET URL``'s requests per second.

A few lines of asyncio streams: 16 keep-alive connections, one request in flight on each,
no pipelining; every answer must be a 200. Slower than wrk, so its figures are lower.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from urllib.parse import urlsplit

CONNECTIONS = 16


def get_request(url: str, cookie: str) -> tuple[str, int, bytes]:
    """The host, port and bytes of ``GET url`` with ``cookie`` (none when empty)."""
    parts = urlsplit(url)
    head = f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
    raw = (head + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n").encode()
    return parts.hostname or "127.0.0.1", parts.port or 80, raw


async def get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> None:
    """Send one request, read one response (fail unless it is a 200 with a length)."""
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200 "):
        raise RuntimeError(f"unexpected response: {head[:200]!r}")
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            await reader.readexactly(int(value))
            return
    raise RuntimeError("the load client needs a content-length")


async def _client(host: str, port: int, raw: bytes, stop: float, done: list[int]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < stop:
            await get(reader, writer, raw)
            done[0] += 1
    finally:
        writer.close()


async def requests_per_second(url: str, cookie: str, seconds: float) -> float:
    """``GET url`` with ``cookie`` on :data:`CONNECTIONS` connections for ``seconds``."""
    host, port, raw = get_request(url, cookie)
    done = [0]
    start = time.perf_counter()
    clients = (_client(host, port, raw, start + seconds, done) for _ in range(CONNECTIONS))
    await asyncio.gather(*clients)
    return done[0] / (time.perf_counter() - start)


if __name__ == "__main__":
    url, seconds = sys.argv[1], float(sys.argv[2])
    print(asyncio.run(requests_per_second(url, os.environ.get("BENCH_COOKIE", ""), seconds)))
