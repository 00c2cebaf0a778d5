"""Deadlines (``AuthConfig.deadlines``): how long a runtime waits for an action.

Each callback gets ``deadlines.callback`` seconds, each adapter call ``deadlines.adapter``,
and a whole sign-in flow (:attr:`sansio_auth.Flow.deadline`) ``deadlines.sign_in``: an
action is given the smaller of its own deadline and what is left of its flow's. Past it,
the runtime stops waiting and answers ``Failed(ActionTimeout(...))`` (a ``TimeoutError``);
the engine turns that into :class:`~sansio_auth.errors.DeadlineExceeded` and the request ends
on its error.

What can be stopped, is: an awaitable (an ``async def`` callback or adapter method, every
adapter of :mod:`io_bindings.db`, whose blocking calls are then abandoned to their worker
thread, their query cancelled in the server on PostgreSQL) is cancelled at the deadline, on
the event loop (:class:`io_bindings.anyio.Auth`) or on the background loop the sync runtime
hands it to (:class:`io_bindings.sync.SyncAuth`, WSGI). A plain function cannot be stopped
in the thread that runs it (nothing in Python interrupts a thread): a sync callback that
overruns fails when it returns, so the request still ends with the error, late. Once a
flow's own deadline has passed, its remaining actions (the undoing of a half-done sign-up,
log lines) run with their own deadlines only.
"""

from __future__ import annotations

import asyncio
import inspect
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

import anyio
import msgspec

from sansio_auth.config import Deadlines
from sansio_auth.engine import describe
from sansio_auth.errors import ActionTimeout
from sansio_auth.events import Action, CallAdapter, Event, Failed, InvokeCallback, Log


class Deadline(msgspec.Struct, frozen=True):
    """How long one action may take."""

    seconds: float
    action: Action
    flow: bool = False
    """The flow's deadline (what was left of it), not the action's own."""

    def failed(self) -> Failed:
        """The answer of the action when it overran (the message made only then)."""
        if self.flow:
            message = f"{describe(self.action)} ran out of the sign-in's time"
        else:
            message = f"{describe(self.action)} did not answer within {self.seconds:g} s"
        return Failed(error=ActionTimeout(message))


class Budget:
    """What is left of a flow's deadline, on ``clock`` (monotonic seconds)."""

    __slots__ = ("_clock", "_end", "_seconds")

    def __init__(self, seconds: float | None, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._seconds = seconds
        self._end = None if seconds is None else clock() + seconds

    def left(self) -> float | None:
        """Seconds left; ``None`` when there is no deadline, or once it has passed (the
        action pending then has failed for it: the rest run with their own deadlines)."""
        return None if self._end is None else self._end - self._clock()

    def report(self) -> Failed:
        """The failure of an action that found no time left (then stop counting)."""
        self.stop()
        return Failed(error=ActionTimeout(f"the sign-in took longer than {self._seconds:g} s"))

    def stop(self) -> None:
        """The flow's deadline has been reported (an action failed for it): the actions
        left (undoing, logging) run with their own deadlines only."""
        self._end = None


def deadline_of(deadlines: Deadlines, action: Action, left: float | None) -> Deadline | None:
    """The deadline of ``action``: its own, or ``left`` of its flow's when that is sooner."""
    own: float | None = None
    if isinstance(action, InvokeCallback):
        own = deadlines.callback
    elif isinstance(action, CallAdapter):
        own = deadlines.adapter
    if left is not None and not isinstance(action, Log) and (own is None or left < own):
        return Deadline(max(left, 0.0), action, flow=True)
    return None if own is None else Deadline(own, action)


class _Cut:
    """The type of :data:`CUT`."""


CUT = _Cut()
"""What :func:`within` returns when the deadline cut the awaitable."""


async def within(awaitable: Awaitable[Any], seconds: float) -> Any:
    """The result of ``awaitable``, or :data:`CUT` when ``seconds`` passed first.

    On asyncio a coroutine is first stepped once, with no timer: one that finishes without
    suspending (an in-memory adapter, SQLite's read at once, an ``async def`` callback that
    awaits nothing) needs none, and a timer costs more than such a call. Only one that
    suspends is driven on under :func:`asyncio.timeout` (not a cancel scope: scopes must
    nest, and the coroutine may have entered its own during that first step). On trio a
    cancel scope wraps the whole.
    """
    if asyncio._get_running_loop() is None or not inspect.iscoroutine(awaitable):
        with anyio.move_on_after(seconds):
            return await awaitable
        return CUT
    try:
        pending = awaitable.send(None)
    except StopIteration as done:
        return done.value
    timer = asyncio.timeout(seconds)
    try:
        async with timer:
            return await _resume(awaitable, pending)
    except TimeoutError:
        if timer.expired():
            return CUT
        raise


@types.coroutine
def _resume(coroutine: Coroutine[Any, Any, Any], pending: Any) -> Generator[Any, Any, Any]:
    """Drive the rest of ``coroutine``, which suspended on ``pending``, in the awaiting task
    (what ``await`` does, from a coroutine already started)."""
    while True:
        try:
            sent = yield pending
        except GeneratorExit:
            coroutine.close()
            raise
        except BaseException as thrown:  # a cancellation: the coroutine handles it
            try:
                pending = coroutine.throw(thrown)
            except StopIteration as done:
                return done.value
        else:
            try:
                pending = coroutine.send(sent)
            except StopIteration as done:
                return done.value


def outcome(
    action: Action,
    event: Event | None,
    elapsed: float,
    deadline: Deadline,
    budget: Budget | None,
) -> Event:
    """The answer of ``action`` performed within ``deadline``: ``event`` (``None``: it was
    cut), or the overrun failure of a sync callback that returned too late. When it failed
    for its flow's deadline, the flow's ``budget`` stops counting."""
    late = isinstance(action, InvokeCallback) and elapsed > deadline.seconds
    if event is not None and not (late and not isinstance(event, Failed)):
        return event
    if budget is not None and deadline.flow:
        budget.stop()
    return deadline.failed()
