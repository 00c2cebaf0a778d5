"""The two drivers: one set of rules for answering actions, run sync or async.

A binding's whole job is "call it, await it if awaitable, send HTTP, write the log":

>>> perform = sync_performer(send_http=my_http, log=print)
>>> response = engine.handle(request).run_sync(perform)

>>> perform = async_performer(send_http=client.send, log=write_log)
>>> response = await engine.handle(request).run(perform)

Every exception raised performing an action becomes :class:`~sansio_auth.events.Failed`;
the engine decides what it means (a refused sign-in, the error page, a log line).

Password hashing (:data:`~sansio_auth.events.CPU_ACTIONS`) is CPU work: the async driver
hands it to ``offload`` (a binding passes ``anyio.to_thread.run_sync``) so that the event
loop keeps serving other requests while a hash is computed.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from .events import (
    CPU_ACTIONS,
    Action,
    CallAdapter,
    CallbackReturned,
    Event,
    Failed,
    HashPassword,
    HTTPResponse,
    InvokeCallback,
    Log,
    OutboundRequest,
    PasswordChecked,
    PasswordHashed,
    SendHTTP,
    VerifyPassword,
)

SyncSendHTTP = Callable[[OutboundRequest], HTTPResponse]
"""Sends an outbound request and returns its response, blocking."""
AsyncSendHTTP = Callable[[OutboundRequest], Awaitable[HTTPResponse]]
"""Sends an outbound request and returns its response."""
WriteLog = Callable[[Log], object]
"""Writes a :class:`~sansio_auth.events.Log` action's line."""
Offload = Callable[[Callable[[], Any]], Awaitable[Any]]
"""Runs a function in a worker thread and awaits its result (``anyio.to_thread.run_sync``)."""


def _no_http(request: OutboundRequest) -> Any:
    raise RuntimeError(f"the driver was given no send_http: cannot send {request.method}")


def _start(action: Action, send_http: Callable[[OutboundRequest], Any], log: WriteLog) -> Any:
    """Begin performing ``action``: its value, or an awaitable of it."""
    match action:
        case InvokeCallback() | CallAdapter() | HashPassword() | VerifyPassword():
            return action.call()
        case SendHTTP(request=request):
            return send_http(request)
        case Log():
            log(action)
            return None
    raise TypeError(f"cannot perform {action!r}")


def _answer(action: Action, value: Any) -> Event:
    if isinstance(action, InvokeCallback | CallAdapter):
        return action.answer(value)
    if isinstance(action, CPU_ACTIONS):
        if not isinstance(value, PasswordHashed | PasswordChecked):
            raise TypeError(f"{type(action).__name__} returned {type(value).__name__}")
        return value  # the event itself
    if isinstance(action, SendHTTP):
        if not isinstance(value, HTTPResponse):
            raise TypeError(f"send_http returned {type(value).__name__}, not HTTPResponse")
        return value
    return CallbackReturned()


def sync_performer(
    *,
    log: WriteLog,
    send_http: SyncSendHTTP = _no_http,
    wait: Callable[[Awaitable[Any]], Any] | None = None,
) -> Callable[[Action], Event]:
    """Answer actions synchronously (for :meth:`Flow.run_sync <sansio_auth.Flow.run_sync>`).

    ``log`` writes :class:`~sansio_auth.events.Log` entries (``print`` will do: a
    ``Log`` prints as Auth.js's log line). ``wait`` runs an awaitable a callback or
    adapter method returned (e.g. ``asyncio.run``, ``anyio.from_thread.run``);
    without it an ``async def`` callback fails its action with :class:`TypeError`.
    """

    def perform(action: Action) -> Event:
        try:
            value = _start(action, send_http, log)
            if inspect.isawaitable(value):
                if wait is None:
                    if inspect.iscoroutine(value):
                        value.close()
                    raise TypeError(
                        f"{type(action).__name__} returned an awaitable and the sync driver "
                        "was given no `wait` to run it"
                    )
                value = wait(value)
            return _answer(action, value)
        except Exception as err:
            return Failed(error=err)

    return perform


def async_performer(
    *, log: WriteLog, send_http: AsyncSendHTTP | None = None, offload: Offload | None = None
) -> Callable[[Action], Awaitable[Event]]:
    """Answer actions asynchronously (for :meth:`Flow.run <sansio_auth.Flow.run>`):
    sync and ``async def`` callbacks and adapter methods alike. ``offload`` runs password
    hashing off the event loop (without it, hashing blocks the loop while it runs)."""
    send: Callable[[OutboundRequest], Any] = _no_http if send_http is None else send_http

    async def perform(action: Action) -> Event:
        try:
            if offload is not None and isinstance(action, CPU_ACTIONS):
                return _answer(action, await offload(action.call))
            value = _start(action, send, log)
            if inspect.isawaitable(value):
                value = await value
            return _answer(action, value)
        except Exception as err:
            return Failed(error=err)

    return perform
