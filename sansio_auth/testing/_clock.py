"""A clock that moves only when told to, and entropy that is the same on every run."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

START = 1_800_000_000.0
"""Where a :class:`Clock` starts by default (2027-01-15T08:00:00Z)."""


class Clock:
    """Unix time in seconds, standing still until :meth:`advance` (give it as ``clock=``)."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward (session expiry, ``update_age``, token ``exp``)."""
        if seconds < 0:
            raise ValueError("a clock does not go backwards")
        self.now += seconds


def seeded_entropy(seed: int | str = 0) -> Callable[[int], bytes]:
    """Deterministic "random" bytes (give it as ``entropy=``): SHA-256 in counter mode
    over ``seed``. Two engines with the same seed draw the same bytes in the same order."""
    counter = 0
    prefix = str(seed).encode()

    def entropy(n: int) -> bytes:
        nonlocal counter
        out = b""
        while len(out) < n:
            counter += 1
            out += hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest()
        return out[:n]

    return entropy
