"""Single flight: the binding's half of actions that concurrent requests must not repeat.

The engine marks such an action with a key (:attr:`sansio_auth.events.SendHTTP.single_flight`
for a refresh-token grant, a hash of the refresh token;
:attr:`sansio_auth.events.CallAdapter.single_flight` for extending a database session).
Here concurrent actions with one key wait for each other: the first is performed, and
those that waited, or come within ``keep`` seconds after, get its answer instead of
sending the used-up refresh token again or writing the same row again. A failure is not
kept: the next one tries for itself. :class:`SingleFlight` serves one event loop's tasks,
:class:`ThreadSingleFlight` a sync server's threads; the bookkeeping is shared.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

import anyio

from sansio_auth.events import Action, CallAdapter, Event, Failed, SendHTTP

L = TypeVar("L")


class _Flights(Generic[L]):
    """Per-key locks (made by ``new_lock``, dropped when nobody holds or waits) and the
    responses received within ``keep`` seconds."""

    def __init__(self, clock: Callable[[], float], keep: float, new_lock: Callable[[], L]) -> None:
        self._clock = clock
        self._keep = keep
        self._new_lock = new_lock
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[L, int]] = {}
        self._answers: OrderedDict[str, tuple[float, Event]] = OrderedDict()

    @contextmanager
    def lock_of(self, key: str) -> Any:
        """The lock of ``key``, counted as used while the block runs."""
        with self._guard:
            lock, users = self._locks.get(key) or (self._new_lock(), 0)
            self._locks[key] = (lock, users + 1)
        try:
            yield lock
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users == 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)

    def answer(self, key: str) -> Event | None:
        """An answer for ``key`` received within ``keep`` seconds."""
        now = self._clock()
        with self._guard:
            while self._answers:  # oldest first: drop what is too old
                first, (at, _) = next(iter(self._answers.items()))
                if now - at <= self._keep:
                    break
                del self._answers[first]
            kept = self._answers.get(key)
        return None if kept is None else kept[1]

    def keep(self, key: str, event: Event) -> Event:
        """Remember ``event`` for ``key`` unless it is a failure; return it."""
        if not isinstance(event, Failed):
            with self._guard:
                self._answers[key] = (self._clock(), event)
        return event


def key_of(action: Action) -> str | None:
    """The single-flight key of ``action``, if it has one."""
    return action.single_flight if isinstance(action, SendHTTP | CallAdapter) else None


class SingleFlight(_Flights[anyio.Lock]):
    """Single flight for the tasks of one event loop."""

    def __init__(self, clock: Callable[[], float], *, keep: float = 30.0) -> None:
        super().__init__(clock, keep, anyio.Lock)

    async def run(self, key: str, perform: Callable[[], Awaitable[Event]]) -> Event:
        """``perform()`` unless a response for ``key`` is at hand or comes meanwhile."""
        with self.lock_of(key) as lock:
            async with lock:
                return self.answer(key) or self.keep(key, await perform())


class ThreadSingleFlight(_Flights[threading.Lock]):
    """Single flight for the threads of a sync server."""

    def __init__(self, clock: Callable[[], float], *, keep: float = 30.0) -> None:
        super().__init__(clock, keep, threading.Lock)

    def run(self, key: str, perform: Callable[[], Event]) -> Event:
        """``perform()`` unless a response for ``key`` is at hand or comes meanwhile."""
        with self.lock_of(key) as lock, lock:
            return self.answer(key) or self.keep(key, perform())
