"""Socket checks the pooled database connections share."""

from __future__ import annotations

import select


def quiet(fd: int) -> bool:
    """Whether an idle connection's socket has nothing to read (without a round trip).

    If it is readable the server has closed it or is telling us something (a restart's
    termination notice): the pool's full check should run then. ``False`` where this
    cannot be known without a round trip (no ``poll``).
    """
    poll = getattr(select, "poll", None)
    if poll is None:
        return False
    poller = poll()
    poller.register(fd, select.POLLIN)
    return not poller.poll(0)
