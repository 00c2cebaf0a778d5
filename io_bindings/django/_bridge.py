"""Where the async runtime runs for a Django request, the one place sync code meets it: the
ASGI server's loop (sync code goes back to it with ``async_to_sync``), or under WSGI one
loop for the process (:mod:`io_bindings._loop`; see ``docs/adapters/django.md``). While a
call runs, :func:`current_request` is the request it serves (for Django's signals)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import TypeVar

from asgiref.sync import async_to_sync
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest

from .._loop import wait, wait_async

T = TypeVar("T")
_serving: ContextVar[HttpRequest | None] = ContextVar("sansio_auth_django_request", default=None)


def current_request() -> HttpRequest | None:
    """The Django request whose runtime call is running here, if any."""
    return _serving.get()


def run(request: HttpRequest, call: Callable[[], Awaitable[T]]) -> T:
    """Run ``call()`` on the runtime's loop from sync code; its result."""
    token = _serving.set(request)
    try:
        return async_to_sync(_await)(call) if isinstance(request, ASGIRequest) else wait(call())
    finally:
        _serving.reset(token)


async def arun(request: HttpRequest, call: Callable[[], Awaitable[T]]) -> T:
    """Await ``call()`` on the runtime's loop from async code."""
    token = _serving.set(request)
    try:
        return await (call() if isinstance(request, ASGIRequest) else wait_async(call()))
    finally:
        _serving.reset(token)


async def _await(call: Callable[[], Awaitable[T]]) -> T:
    return await call()
