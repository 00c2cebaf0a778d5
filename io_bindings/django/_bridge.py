"""Where the async runtime runs for a Django request: the one place sync code meets it.

The runtime (:class:`io_bindings.anyio.Auth`: its HTTP connection pool, provider cache and
database pools) must live on **one** event loop. Which loop depends on the server:

* **ASGI** (uvicorn, daphne): the server's loop. Async code awaits directly; sync code
  (sync views, a middleware Django runs in sync mode) runs in a worker thread that
  :func:`asgiref.sync.async_to_sync` hands back to that same loop.
* **WSGI** (``runserver``, gunicorn, mod_wsgi): there is no loop of the server's. A
  ``async_to_sync`` call would start a new loop per call, so pooled connections made on
  one loop would be reused on another, and two request threads would share the runtime
  at once. Instead one process-wide loop runs in a daemon thread and every WSGI request
  submits its coroutine there (and waits). Async views under WSGI (Django runs them on a
  throw-away loop) await the same loop's future.

A request is ASGI when Django built an :class:`~django.core.handlers.asgi.ASGIRequest`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest

from .._loop import background_loop as _loop
from .._loop import wait

T = TypeVar("T")


def in_event_loop() -> bool:
    """Whether this thread is running an event loop (async code must ``await``)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run(request: HttpRequest, call: Callable[[], Awaitable[T]]) -> T:
    """Run ``call()`` on the runtime's loop from sync code; its result."""
    if isinstance(request, ASGIRequest):
        return async_to_sync(_awaiting(call))()
    return wait(call())


async def arun(request: HttpRequest, call: Callable[[], Awaitable[T]]) -> T:
    """Await ``call()`` on the runtime's loop from async code."""
    if isinstance(request, ASGIRequest):
        return await call()
    future = asyncio.run_coroutine_threadsafe(_awaiting(call)(), _loop())
    return await asyncio.wrap_future(future)


def _awaiting(call: Callable[[], Awaitable[T]]) -> Callable[[], Coroutine[Any, Any, T]]:
    """``call`` as a coroutine function (what both loop APIs take)."""

    async def wrapper() -> T:
        return await call()

    return wrapper
