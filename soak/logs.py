"""The server's log, split into entries, and which of them are the expected refusals.

An entry is a line and the traceback printed after it, if any; any line that is not part
of a traceback starts a new entry. Refusals any client can trigger are logged as warnings,
``[auth][warn] <ErrorType>: ...``; they are expected when the type is one the workload
provokes and a traceback after them (if any) ends in an error of the library (the
refusal's cause), not a stray traceback of something else. Every other entry is
unexpected: the soak fails on it.
"""

from __future__ import annotations

import re

EXPECTED_REFUSALS = frozenset(
    {
        "CredentialsSignin",  # a wrong password
        "JWTSessionError",  # a garbage or tampered session cookie
        "MissingCSRF",  # a missing or wrong CSRF token
    }
)
_TRACEBACK = re.compile(
    r"\s|Traceback \(most recent call last\):$|The above exception|During handling of the above"
)
_EXCEPTION = re.compile(r"[A-Za-z_][\w.]*(?:: .*)?$")  # a traceback's last line
_REFUSAL = re.compile(r"\[auth\]\[warn\] (\w+)[:\s]")


def entries(log: str) -> list[str]:
    """The entries of ``log``, each with its continuation lines; blank lines dropped."""
    found: list[list[str]] = []
    for line in log.splitlines():
        if not line.strip():
            continue
        if found and _continues(found[-1][-1], line):
            found[-1].append(line)
        else:
            found.append([line])
    return ["\n".join(lines) for lines in found]


def _continues(previous: str, line: str) -> bool:
    """Whether ``line`` is part of the traceback of the entry ending with ``previous``."""
    if _TRACEBACK.match(line):
        return True
    return previous[:1].isspace() and _EXCEPTION.match(line) is not None


def refusal_type(entry: str) -> str | None:
    """The error type of an expected refusal entry, else ``None``."""
    match = _REFUSAL.match(entry)
    if match is None or match.group(1) not in EXPECTED_REFUSALS:
        return None
    lines = entry.splitlines()
    if len(lines) > 1 and not lines[-1].startswith("sansio_auth."):
        return None
    return match.group(1)


def classify(log: str) -> tuple[dict[str, int], list[str]]:
    """Expected refusals counted by type, and the unexpected entries."""
    refusals: dict[str, int] = {}
    unexpected: list[str] = []
    for entry in entries(log):
        kind = refusal_type(entry)
        if kind is None:
            unexpected.append(entry)
        else:
            refusals[kind] = refusals.get(kind, 0) + 1
    return refusals, unexpected
