"""What every binding gives the engine's drivers: outbound HTTP and the default log.

The rules for answering actions live in :mod:`sansio_auth.drivers`; a binding
only chooses the :class:`HTTPTransport` and where the default log goes.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Protocol

from sansio_auth.drivers import WriteLog
from sansio_auth.errors import fault_of
from sansio_auth.events import HTTPResponse, Log, OutboundRequest

logger = logging.getLogger("sansio_auth")


class HTTPTransport(Protocol):
    """Sends the engine's outbound HTTP requests."""

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        """Send ``request`` and return the whole response; raise on transport failure."""
        ...


def write_log(entry: Log, *, debug: bool = False) -> None:
    """The default log: the Python logger ``sansio_auth``, lines in Auth.js's format.

    An error any client can cause (fault ``"browser"``: a tampered cookie, a bad CSRF
    token) is one line naming its type: the client controls how many there are. Other
    errors, and every error when ``debug``, carry the traceback of their cause.
    """
    if entry.level == "error":
        logger.error("%s", entry, exc_info=_traceback(entry.error, debug))
    elif entry.level == "warn":
        logger.warning("%s", entry)
    else:
        logger.debug("%s", entry)


def log_writer(debug: bool) -> WriteLog:
    """:func:`write_log` for an engine with ``debug`` on or off."""
    return partial(write_log, debug=True) if debug else write_log


def _traceback(error: BaseException | None, debug: bool) -> BaseException | None:
    if error is None or (fault_of(error) == "browser" and not debug):
        return None
    shown = error.__cause__ or error
    return shown if shown.__traceback__ is not None else None
