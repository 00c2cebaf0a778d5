"""What every binding gives the engine's drivers: outbound HTTP and the default log.

The rules for answering actions live in :mod:`sansio_auth.drivers`; a binding
only chooses the :class:`HTTPTransport` and where the default log goes.
"""

from __future__ import annotations

import logging
import os
import traceback
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

import anyio
import anyio.to_thread

from sansio_auth.drivers import WriteLog
from sansio_auth.errors import fault_of
from sansio_auth.events import HTTPResponse, Log, OutboundRequest, escape_log_text

logger = logging.getLogger("sansio_auth")


class HTTPTransport(Protocol):
    """Sends the engine's outbound HTTP requests."""

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        """Send ``request`` and return the whole response; raise on transport failure."""
        ...


def write_log(entry: Log, *, debug: bool = False) -> None:
    """The default log: the Python logger ``sansio_auth``, lines in Auth.js's format, at the
    entry's level (a refusal the client caused is a warning, a fault of the server an error).

    A refusal (fault ``"browser"``: a wrong password, a tampered cookie, a bad CSRF token, a
    forged callback) is one line naming its type: the client controls how many there are.
    Other errors, and every error when ``debug``, carry the traceback of their cause. Every
    line is escaped (:func:`~sansio_auth.events.escape_log_text`), tracebacks included: no
    text a browser or provider sent can forge a line.
    """
    if entry.level == "debug":
        logger.debug("%s", entry)
        return
    write = logger.error if entry.level == "error" else logger.warning
    shown = _traceback(entry.error, debug)
    if shown is None:
        write("%s", entry)
    else:
        write("%s\n%s", entry, traceback_text(shown))


def log_writer(debug: bool) -> WriteLog:
    """:func:`write_log` for an engine with ``debug`` on or off."""
    return partial(write_log, debug=True) if debug else write_log


def _traceback(error: BaseException | None, debug: bool) -> BaseException | None:
    if error is None or (fault_of(error) == "browser" and not debug):
        return None
    shown = error.__cause__ or error
    return shown if shown.__traceback__ is not None else None


def traceback_text(error: BaseException) -> str:
    """The traceback of ``error`` and the exceptions it was raised from, as Python prints
    it, with every exception's message escaped (stack lines are the code's own)."""
    chain: list[tuple[BaseException, str]] = []  # innermost last, with how it led on
    current: BaseException | None = error
    link = ""
    while current is not None and all(current is not seen for seen, _ in chain):
        chain.append((current, link))
        if current.__cause__ is not None:
            current, link = current.__cause__, _CAUSE
        elif current.__context__ is not None and not current.__suppress_context__:
            current, link = current.__context__, _CONTEXT
        else:
            current = None
    parts: list[str] = []
    for exc, led_on in reversed(chain):
        if exc.__traceback__ is not None:
            parts.append("Traceback (most recent call last):\n")
            parts.extend(traceback.format_tb(exc.__traceback__))
        message = escape_log_text(str(exc))
        parts.append(
            f"{type(exc).__qualname__}: {message}\n" if message else f"{type(exc).__qualname__}\n"
        )
        parts.append(led_on)
    return "".join(parts).rstrip("\n")


_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


class CPUPool:
    """Runs the engine's CPU work (password hashing) in worker threads, at most ``threads``
    at once (default: one per CPU), so that a burst of sign-ins neither stalls the event
    loop nor takes every worker thread from the database adapters (argon2 releases the GIL
    while it hashes, so the loop keeps serving meanwhile)."""

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads or os.cpu_count() or 2
        self._limiter: anyio.CapacityLimiter | None = None

    async def __call__(self, function: Callable[[], Any]) -> Any:
        """``function()`` in a worker thread."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.threads)
        return await anyio.to_thread.run_sync(function, limiter=self._limiter)
