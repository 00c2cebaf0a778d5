"""Performing the engine's actions: written once, used by every binding.

Bindings differ only in the :class:`HTTPTransport` they give (how they open
connections, sleep and time out); everything else is here.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, Protocol

from sansio_auth import Flow, Response, Settings
from sansio_auth.errors import AuthError, EventError
from sansio_auth.events import (
    Action,
    AdapterReturned,
    CallAdapter,
    CallbackReturned,
    EmitEvent,
    Event,
    Failed,
    HTTPResponse,
    InvokeCallback,
    Log,
    OutboundRequest,
    Respond,
    SendHTTP,
)

logger = logging.getLogger("sansio_auth")


class HTTPTransport(Protocol):
    """Sends the engine's outbound HTTP requests."""

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        """Send ``request`` and return the whole response; raise on transport failure."""
        ...


class NoTransport:
    """A transport for configurations that never send HTTP (raises if asked)."""

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        """Refuse: this binding was built without an HTTP client."""
        raise RuntimeError("this binding has no HTTP client")


@lru_cache(maxsize=512)
def _accepted(function: Callable[..., Any]) -> frozenset[str] | None:
    """Keyword names ``function`` accepts, or ``None`` when it takes ``**kwargs``."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(
        p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    )


async def call_user(function: Callable[..., Any], params: Mapping[str, Any]) -> Any:
    """Call a sync or async user function with the keyword params its signature names."""
    try:
        accepted = _accepted(function)
    except TypeError:  # unhashable callable
        accepted = None
    kwargs = params if accepted is None else {k: v for k, v in params.items() if k in accepted}
    result = function(**kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


class Dispatcher:
    """Performs actions for one engine's settings, with the binding's transport."""

    def __init__(self, settings: Settings, transport: HTTPTransport) -> None:
        self.settings = settings
        self.transport = transport
        self.debug = settings.debug or settings.logger.debug is not None

    async def run(self, flow: Flow) -> Response:
        """Drive ``flow`` to its response."""
        action = flow.next_action()
        while not isinstance(action, Respond):
            action = flow.send(await self.perform(action))
        return action.response

    async def perform(self, action: Action) -> Event:
        """Perform one action; exceptions become :class:`Failed`."""
        if self.debug and not isinstance(action, Log):
            await self.log(Log(level="debug", code="action", message=describe(action)))
        try:
            match action:
                case InvokeCallback(function=function, params=params):
                    return CallbackReturned(value=await call_user(function, params))
                case CallAdapter(method=method, args=args):
                    value = getattr(self.settings.adapter, method)(*args)
                    if inspect.isawaitable(value):
                        value = await value
                    return AdapterReturned(value=value)
                case SendHTTP(request=request):
                    return await self.transport.send(request)
                case EmitEvent():
                    await self._emit(action)
                    return CallbackReturned()
                case Log():
                    await self.log(action)
                    return CallbackReturned()
        except Exception as err:
            return Failed(error=err)
        raise TypeError(f"unknown action {action!r}")

    async def _emit(self, action: EmitEvent) -> None:
        handler = getattr(self.settings.events, action.name, None)
        if handler is None:
            return
        try:
            await call_user(handler, action.message)
        except Exception as err:
            await self.log(
                Log(level="error", code="EventError", message=str(err), error=EventError(err))
            )

    async def log(self, entry: Log) -> None:
        """Write ``entry`` through the configured logger, else the ``sansio_auth`` logger."""
        custom = getattr(self.settings.logger, entry.level)
        try:
            if custom is not None:
                if entry.level == "error":
                    await call_user(custom, {"error": entry.error or AuthError(entry.message)})
                elif entry.level == "warn":
                    await call_user(custom, {"code": entry.code})
                else:
                    await call_user(custom, {"message": entry.message, "metadata": entry.metadata})
                return
        except Exception:
            logger.exception("[auth][error] the custom logger raised")
        default_log(entry, debug=self.settings.debug)


def describe(action: Action) -> str:
    """A one-line, secret-free description of ``action`` for debug logs."""
    match action:
        case InvokeCallback(name=name):
            return f"callback {name}"
        case CallAdapter(method=method):
            return f"adapter_{method}"
        case SendHTTP(request=request):
            return f"http {request.method} {request.url.partition('?')[0]}"
        case EmitEvent(name=name):
            return f"event {name}"
    return type(action).__name__


def default_log(entry: Log, *, debug: bool) -> None:
    """The built-in log format: ``[auth][<level>] ...``."""
    if entry.level == "error":
        cause = entry.error.__cause__ if entry.error is not None else None
        logger.error("[auth][error] %s: %s", entry.code, entry.message, exc_info=cause)
    elif entry.level == "warn":
        suffix = f" {entry.message}" if entry.message else ""
        logger.warning(
            "[auth][warn][%s]%s Read more: https://warnings.authjs.dev", entry.code, suffix
        )
    elif debug:
        logger.debug("[auth][debug]: %s %r", entry.message, entry.metadata)
