"""aiohttp's own server (``web.AppRunner`` + ``web.TCPSite``) on 127.0.0.1, on an event loop
in a thread of its own, so sync test code can drive it with a real HTTP client.

>>> with running(app) as url:
...     httpx.get(f"{url}/api/auth/csrf")

Leaving the block fails the test if a handler crashed (aiohttp's "Error handling request",
or the adapter's 500 fallback).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web
from live_server import free_port

CRASHES = ("Error handling request", "unexpected failure serving")


class _Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def running(app: web.Application) -> Iterator[str]:
    """Serve ``app`` until the block ends; its base URL."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    port = free_port()
    ready = threading.Event()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    recorder = _Recorder()
    loggers = [logging.getLogger(name) for name in ("aiohttp.server", "sansio_auth")]
    for logger in loggers:
        logger.addHandler(recorder)
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        assert ready.wait(10), "the aiohttp server did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        for logger in loggers:
            logger.removeHandler(recorder)
    crashes = [m for m in recorder.messages if m.startswith(CRASHES)]
    assert not crashes, crashes
