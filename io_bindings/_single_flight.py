"""Single flight: the binding's half of refresh-token rotation without races.

The engine marks a request that must not be made twice at once with a key
(:attr:`sansio_auth.events.SendHTTP.single_flight`, a hash of the refresh token).
Here concurrent requests with one key wait for each other: the first is sent, and
those that waited, or come within ``keep`` seconds after, get its response
instead of sending the used-up refresh token again. A failure is not kept: the next
one tries for itself.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable

import anyio

from sansio_auth.events import Event, HTTPResponse


class SingleFlight:
    """Per-key locks and recently received responses, for one event loop."""

    def __init__(self, clock: Callable[[], float], *, keep: float = 30.0) -> None:
        self._clock = clock
        self._keep = keep
        self._locks: dict[str, tuple[anyio.Lock, int]] = {}
        self._answers: OrderedDict[str, tuple[float, HTTPResponse]] = OrderedDict()

    async def run(self, key: str, perform: Callable[[], Awaitable[Event]]) -> Event:
        """``perform()`` unless a response for ``key`` is at hand or comes meanwhile."""
        lock, users = self._locks.get(key) or (anyio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                answer = self._answer(key)
                if answer is not None:
                    return answer
                event = await perform()
                if isinstance(event, HTTPResponse):
                    self._answers[key] = (self._clock(), event)
                return event
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def _answer(self, key: str) -> HTTPResponse | None:
        now = self._clock()
        while self._answers:  # oldest first: drop what is too old
            first, (at, _) = next(iter(self._answers.items()))
            if now - at <= self._keep:
                break
            del self._answers[first]
        kept = self._answers.get(key)
        return None if kept is None else kept[1]
