"""One process-wide event loop in a daemon thread, for sync code that must run async code.

Async resources (a database adapter's pool, an ``async def`` callback's clients) belong
to one loop. Sync servers (WSGI) have none: a fresh loop per call would strand pooled
connections on dead loops. Every sync caller submits its coroutine to this one loop and
waits for the result (the Django adapter under WSGI and :mod:`io_bindings.sync`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from typing import Any, TypeVar

from ._deadlines import CUT, within

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def background_loop() -> asyncio.AbstractEventLoop:
    """The process-wide loop (started on first use)."""
    global _loop
    with _lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="sansio-auth-wsgi-loop", daemon=True
            )
            thread.start()
            _loop = loop
        return _loop


async def _awaited(awaitable: Awaitable[T], seconds: float | None = None) -> Any:
    if seconds is None:
        return await awaitable
    result = await within(awaitable, seconds)
    if result is CUT:
        raise TimeoutError(f"no answer within {seconds:g} s")
    return result


def wait(awaitable: Awaitable[T], *, timeout: float | None = None) -> T:
    """Run ``awaitable`` on :func:`background_loop` and block until its result; with
    ``timeout``, it is cancelled after that many seconds and :class:`TimeoutError` raised."""
    running = _awaited(awaitable, timeout)
    result: T = asyncio.run_coroutine_threadsafe(running, background_loop()).result()
    return result


async def wait_async(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable`` run on :func:`background_loop`, from another loop."""
    future = asyncio.run_coroutine_threadsafe(_awaited(awaitable), background_loop())
    result: T = await asyncio.wrap_future(future)
    return result


def in_event_loop() -> bool:
    """Whether this thread is running an event loop (async code must ``await``)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


__all__ = ["background_loop", "in_event_loop", "wait", "wait_async"]
