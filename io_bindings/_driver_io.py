"""What every binding gives the engine's drivers: outbound HTTP and the default log.

The rules for answering actions live in :mod:`sansio_auth.drivers`; a binding
only chooses the :class:`HTTPTransport` and where the default log goes.
"""

from __future__ import annotations

import logging
from typing import Protocol

from sansio_auth.events import HTTPResponse, Log, OutboundRequest

logger = logging.getLogger("sansio_auth")


class HTTPTransport(Protocol):
    """Sends the engine's outbound HTTP requests."""

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        """Send ``request`` and return the whole response; raise on transport failure."""
        ...


def write_log(entry: Log) -> None:
    """The default log: the Python logger ``sansio_auth``, lines in Auth.js's format."""
    if entry.level == "error":
        cause = entry.error.__cause__ if entry.error is not None else None
        logger.error("%s", entry, exc_info=cause)
    elif entry.level == "warn":
        logger.warning("%s", entry)
    else:
        logger.debug("%s", entry)
