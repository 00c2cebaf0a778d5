"""The nodes' logs: each entry is an error of an outage (counted by outage and type) or
unexpected (the soak fails on it).

The fleet app starts every line of the library's and the PostgreSQL pool's logs with the
Unix time and the logger (:func:`soak.cluster.app.timestamped_log`); an entry logged while a
store was down (or within a second of it) is the fail-closed side of that outage: the request
it belongs to was answered as documented (a ``null`` session, the error page, a 503), and its
cause is in the log.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from soak.logs import entries

from .workload import Outages

_STAMPED = re.compile(r"(\d+\.\d+) ([\w.]+): (.*)", re.DOTALL)
_ERROR = re.compile(r"\[auth\]\[error\] (\w+)")
GRACE = 1.0


@dataclass
class NodeLog:
    """One node's log, sorted."""

    fail_closed: Counter[str] = field(default_factory=Counter)
    """``"<outage>: <error type>"`` → entries."""
    unexpected: list[str] = field(default_factory=list)


def classify(log: str, outages: Outages, wall_offset: float) -> NodeLog:
    """Sort the entries of ``log``; ``wall_offset`` is ``time.time() - time.monotonic()``."""
    found = NodeLog()
    for entry in entries(log):
        stamped = _STAMPED.match(entry)
        if stamped is None:
            found.unexpected.append(entry)
            continue
        at = float(stamped.group(1)) - wall_offset
        outage = outages.during(at - GRACE, at + GRACE)
        error = _ERROR.match(stamped.group(3))
        if outage is None:
            found.unexpected.append(entry)
        else:
            kind = error.group(1) if error else stamped.group(2)
            found.fail_closed[f"{outage}: {kind}"] += 1
    return found
