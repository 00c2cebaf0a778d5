"""Failed password checks that take as long as the costliest kind of check: no answer time
tells whether an account exists.

A check's cost depends on the stored hash: an unknown address is checked against a dummy
argon2id hash of the current parameters (tens of milliseconds), as is an account of ours,
but an account imported with Django's ``pbkdf2_sha256`` and a million iterations takes
~0.4 s, and a bcrypt hash its own cost. So a slow wrong-password answer would say "this
address has an account, with an old hash". The engine does no timing (it is pure), so the
runtimes do it here, where they perform :class:`~sansio_auth.events.VerifyPassword`: every
check is timed and filed under its hash's *kind* (format and cost parameters,
:func:`cost_kind`), and a *failed* check is held back until it has lasted as long as the
costliest kind recently checked (the 90th percentile of its last runs, so one stall does
not slow every failure after it). A correct password is never held back: its sender knows
the password already, and sign-ins stay as fast as their hash.

Why not check unknown addresses against a dummy of the costliest kind instead: that would
make them slower than a wrong password for an argon2id account, which would then tell. Only
holding every failure back to one floor hides them all.

What it cannot hide: a process learns a kind's cost by checking one. The first failed check
of a costlier kind in a process is slower than the failures before it; from then on every
failure waits for it. That kind goes away as its users sign in (their hash is replaced by
argon2id), and the rate limits cap how many checks anyone can time.
"""

from __future__ import annotations

import threading
from collections import deque

from sansio_auth.events import Event, PasswordChecked, VerifyPassword

SAMPLES = 20
"""Recent check times kept per kind."""
KINDS = 32
"""Kinds kept at most (the cheapest is forgotten first)."""
QUANTILE = 0.9
"""Which of a kind's recent times is its cost."""

_KIND_PARTS = (
    ("$argon2", 4),  # $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
    ("argon2$", 4),  # Django: argon2$argon2id$v=19$m=...$<salt>$<hash>
    ("pbkdf2_sha256$", 2),  # Django: pbkdf2_sha256$<iterations>$<salt>$<hash>
    ("$2", 3),  # bcrypt: $2b$<cost>$<salt and hash>
    ("bcrypt$", 4),  # Django: bcrypt$$2b$<cost>$...
    ("bcrypt_sha256$", 4),
)


def cost_kind(stored: str | None) -> str:
    """What decides a check's cost: the hash's format and parameters, without its salt and
    digest (``"none"``: the dummy hash of an unknown address or a user without password)."""
    if stored is None:
        return "none"
    for prefix, parts in _KIND_PARTS:
        if stored.startswith(prefix):
            return "$".join(stored.split("$")[:parts])
    return "other"


class PasswordCheckTimes:
    """What each kind of password check costs in this process, and how long a failed one
    is held back (thread-safe: the sync runtime checks in many threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._times: dict[str, deque[float]] = {}

    def hold(self, action: VerifyPassword, event: Event, seconds: float) -> float:
        """File ``seconds``, what performing ``action`` took, under its kind; the seconds
        to hold its answer ``event`` back (0 unless it is a failed check)."""
        with self._lock:
            times = self._times.get(cost_kind(action.stored))
            if times is None:
                if len(self._times) >= KINDS:
                    del self._times[min(self._times, key=lambda k: _cost(self._times[k]))]
                times = self._times[cost_kind(action.stored)] = deque(maxlen=SAMPLES)
            times.append(seconds)
            if not isinstance(event, PasswordChecked) or event.valid:
                return 0.0
            floor = max(_cost(kind) for kind in self._times.values())
        return max(0.0, floor - seconds)

    def costs(self) -> dict[str, float]:
        """Each kind's cost now, in seconds."""
        with self._lock:
            return {kind: _cost(times) for kind, times in self._times.items()}


def _cost(times: deque[float]) -> float:
    ordered = sorted(times)
    return ordered[int(QUANTILE * (len(ordered) - 1))]
