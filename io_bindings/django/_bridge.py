"""Where the async runtime runs for a Django request: the one place sync code meets it.

The runtime (its HTTP, provider cache and database pools) must live on **one** event loop:

* **ASGI** (uvicorn, daphne): the server's. Async code awaits directly; sync code (sync
  views, a middleware in sync mode) runs in a worker thread that
  :func:`asgiref.sync.async_to_sync` hands back to that loop.
* **WSGI** (``runserver``, gunicorn): there is none, and ``async_to_sync`` would start a
  loop per call (stranding pooled connections). Every WSGI request submits its coroutine
  to one process-wide loop (:mod:`io_bindings._loop`) and waits, async views included.

A request is ASGI when Django built an :class:`~django.core.handlers.asgi.ASGIRequest`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest

from .._loop import in_event_loop, wait, wait_async

T = TypeVar("T")


def run(request: HttpRequest, call: Callable[[], Awaitable[T]]) -> T:
    """Run ``call()`` on the runtime's loop from sync code; its result."""
    if isinstance(request, ASGIRequest):
        return async_to_sync(_awaiting(call))()
    return wait(call())


async def arun(request: HttpRequest, call: Callable[[], Awaitable[T]]) -> T:
    """Await ``call()`` on the runtime's loop from async code."""
    return await (call() if isinstance(request, ASGIRequest) else wait_async(call()))


def _awaiting(call: Callable[[], Awaitable[T]]) -> Callable[[], Coroutine[Any, Any, T]]:
    """``call`` as a coroutine function (what ``async_to_sync`` takes)."""

    async def wrapper() -> T:
        return await call()

    return wrapper


__all__ = ["arun", "in_event_loop", "run"]
