"""The generator plumbing flows are written with, and the :class:`Flow` driver handle.

A step is a generator that yields actions, receives events and returns a value:
``user = yield from invoke("authorize", fn, credentials=..., request=...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, TypeVar

from .errors import AdapterError, AuthError
from .events import (
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

T = TypeVar("T")
Step = Generator[Action, Event, T]


class Flow:
    """One request being served: pull actions, push the events that answer them.

    >>> action = flow.next_action()
    >>> while not isinstance(action, Respond):
    ...     action = flow.send(perform(action))
    """

    __slots__ = ("_done", "_gen", "_started")

    def __init__(self, gen: Generator[Action, Event, None]) -> None:
        self._gen = gen
        self._started = False
        self._done = False

    def next_action(self) -> Action:
        """The first action; call once, then :meth:`send`."""
        if self._started:
            raise RuntimeError("next_action() is only for the first action; use send()")
        self._started = True
        return self._advance(None)

    def send(self, event: Event) -> Action:
        """Answer the last action with ``event``; get the next action."""
        if not self._started:
            raise RuntimeError("call next_action() first")
        return self._advance(event)

    def _advance(self, event: Event | None) -> Action:
        if self._done:
            raise RuntimeError("the flow has already responded")
        action = self._gen.send(event)  # type: ignore[arg-type]
        if isinstance(action, Respond):
            self._done = True
            self._gen.close()
        return action


def invoke(name: str, function: Callable[..., Any], **params: Any) -> Step[Any]:
    """Call a user function; its exception is raised here."""
    event = yield InvokeCallback(name=name, function=function, params=params)
    if isinstance(event, Failed):
        raise event.error
    return _expect(event, CallbackReturned).value


def call_adapter(method: str, *args: Any) -> Step[Any]:
    """Call an adapter method; its exception becomes :class:`AdapterError`."""
    event = yield CallAdapter(method=method, args=args)
    if isinstance(event, Failed):
        if isinstance(event.error, AuthError):
            raise event.error
        raise AdapterError(event.error, cause={"method": method})
    return _expect(event, AdapterReturned).value


def send_http(request: OutboundRequest) -> Step[HTTPResponse]:
    """Make an outbound request; transport failures are raised here."""
    event = yield SendHTTP(request=request)
    if isinstance(event, Failed):
        raise event.error
    return _expect(event, HTTPResponse)


def emit(handler: Callable[..., Any] | None, name: str, **message: Any) -> Step[None]:
    """Emit ``events.<name>`` if a handler is set (its failure is logged by the binding)."""
    if handler is not None:
        yield EmitEvent(name=name, message=message)


def log_error(error: BaseException) -> Step[None]:
    """Log ``error`` at level error."""
    code = error.type if isinstance(error, AuthError) else type(error).__name__
    yield Log(level="error", code=code, message=str(error), error=error)


def log_warning(code: str, message: str = "") -> Step[None]:
    """Log warning ``code``."""
    yield Log(level="warn", code=code, message=message)


E = TypeVar("E")


def _expect(event: Event, kind: type[E]) -> E:
    if not isinstance(event, kind):
        raise TypeError(f"expected {kind.__name__}, the binding sent {type(event).__name__}")
    return event
