"""Stopping what a deadline cut: the query of a store call its caller no longer waits for.

A blocking store call abandoned to its worker thread (:class:`StoreCall`, around
:func:`stoppable` blocks of the store), and an asyncio call left running in a task of its
own (:class:`RunningQuery`, :func:`cancel_until_done`), have their query cancelled in the
server (psycopg's ``cancel_safe``) until they end: the statement fails, a transaction
is rolled back whole, and the connection goes back to its pool. A cancel request that
lands between two statements stops nothing, so it is sent again until the call ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextvars import ContextVar
from typing import Any

logger = logging.getLogger("sansio_auth")

STOP_INTERVAL = 0.1
"""Seconds between two attempts to stop the query of a cancelled call (a cancel request
that lands between two statements of a transaction stops nothing: the next one is)."""
STOP_ATTEMPTS = 100
"""How many times (10 s in all) a cancelled call's query is cancelled before the call is
left to run to its end."""


class CallCancelled(Exception):
    """Raised in the thread of a call its caller has cancelled, as it takes a connection."""


class StoreCall:
    """One store call in a worker thread, and the means to stop its query once its caller
    has gone (a deadline)."""

    __slots__ = ("_lock", "_stop", "cancelled", "done")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stop: Callable[[], object] | None = None
        self.cancelled = False
        self.done = threading.Event()

    @contextlib.contextmanager
    def stoppable(self, stop: Callable[[], object]) -> Iterator[None]:
        with self._lock:
            if self.cancelled:
                raise CallCancelled("the caller of this store call has gone")
            self._stop = stop
        try:
            yield
        finally:
            with self._lock:  # not while a stop is being sent: the connection is still ours
                self._stop = None

    def cancel(self) -> None:
        """Stop the call from another thread (it returns at once)."""
        with self._lock:
            self.cancelled = True
        if not self.done.is_set():
            threading.Thread(
                target=self._stop_until_done, name="store-call-stop", daemon=True
            ).start()

    def _stop_until_done(self) -> None:
        for _ in range(STOP_ATTEMPTS):
            with self._lock:
                if self._stop is not None:
                    with contextlib.suppress(Exception):
                        self._stop()
            if self.done.wait(STOP_INTERVAL):
                return


CALL: ContextVar[StoreCall | None] = ContextVar("sansio_auth_store_call", default=None)
"""The store call the current worker thread runs (set by ``StoreAdapter``)."""


@contextlib.contextmanager
def stoppable(stop: Callable[[], object]) -> Iterator[None]:
    """Within this block of a store call, ``stop`` (called from another thread) stops what
    the call is doing: a driver's cancel of the query running on the connection the call
    holds. If the call's caller has gone (a deadline), ``stop`` is called until the call
    ends; if it had gone before the block, :class:`CallCancelled` is raised at once."""
    call = CALL.get()
    if call is None:
        yield
        return
    with call.stoppable(stop):
        yield


class Background:
    """The tasks on ``loop`` that settle what calls cut by a deadline left on their
    connections, kept until they end."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` in a task of its own (no deadline of the caller reaches it)."""
        task = self.loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            logger.warning("a cancelled call's connection could not be settled: %r", error)

    async def wait(self) -> None:
        """Until the tasks running now have ended."""
        if self._tasks:
            await asyncio.wait(self._tasks)


class RunningQuery:
    """The driver's connection a task's query runs on, while it runs: what
    :func:`cancel_until_done` cancels (and never a connection given back to its pool)."""

    __slots__ = ("conn", "started")

    def __init__(self) -> None:
        self.conn: Any = None
        self.started = False

    @contextlib.contextmanager
    def on(self, conn: Any) -> Iterator[None]:
        """The query in this block runs on ``conn``."""
        self.conn, self.started = conn, True
        try:
            yield
        finally:
            self.conn = None


async def cancel_until_done(task: asyncio.Task[Any], query: RunningQuery, seconds: float) -> None:
    """Cancel ``task``'s ``query``, which a deadline left running, in the server until
    ``task`` ends (a cancel request that lands before the query has started stops nothing);
    then take its outcome. ``seconds``: how long one cancel request may take. A task whose
    query has not started is cancelled at once: it has sent nothing."""
    if not query.started:
        task.cancel()
    for _ in range(STOP_ATTEMPTS):
        if query.conn is not None:
            with contextlib.suppress(Exception):
                await query.conn.cancel_safe(timeout=seconds)
        done, _ = await asyncio.wait([task], timeout=STOP_INTERVAL)
        if done:
            break
    else:
        await asyncio.wait([task])
    with contextlib.suppress(Exception):
        task.result()
