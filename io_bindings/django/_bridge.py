"""Where the async runtime runs for a Django request: the one place sync code meets it.

The runtime (its HTTP, provider cache and database pools) must live on **one** event loop:

* **ASGI** (uvicorn, daphne): the server's. Async code awaits directly; sync code (sync
  views, a middleware in sync mode) runs in a worker thread that
  :func:`asgiref.sync.async_to_sync` hands back to that loop.
* **WSGI** (``runserver``, gunicorn): there is none, and ``async_to_sync`` would start a
  loop per call (stranding pooled connections). Every WSGI request submits its coroutine
  to one process-wide loop (:mod:`io_bindings._loop`) and waits, async views included.

A request is ASGI when Django built an :class:`~django.core.handlers.asgi.ASGIRequest`.
While a call runs, :func:`current_request` is the Django request it serves (for the event
handlers that send Django's signals, :mod:`io_bindings.django.orm.signals`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from typing import TypeVar

from asgiref.sync import async_to_sync
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest

from .._loop import in_event_loop, wait, wait_async

T = TypeVar("T")
_serving: ContextVar[HttpRequest | None] = ContextVar("sansio_auth_django_request", default=None)


def current_request() -> HttpRequest | None:
    """The Django request whose runtime call is running here, if any."""
    return _serving.get()


@contextlib.contextmanager
def _serving_request(request: HttpRequest) -> Iterator[None]:
    token = _serving.set(request)
    try:
        yield
    finally:
        _serving.reset(token)


def run(request: HttpRequest, call: Callable[[], Awaitable[T]]) -> T:
    """Run ``call()`` on the runtime's loop from sync code; its result."""
    with _serving_request(request):
        if isinstance(request, ASGIRequest):
            return async_to_sync(_await)(call)
        return wait(call())


async def arun(request: HttpRequest, call: Callable[[], Awaitable[T]]) -> T:
    """Await ``call()`` on the runtime's loop from async code."""
    with _serving_request(request):
        return await (call() if isinstance(request, ASGIRequest) else wait_async(call()))


async def _await(call: Callable[[], Awaitable[T]]) -> T:
    return await call()


__all__ = ["arun", "current_request", "in_event_loop", "run"]
