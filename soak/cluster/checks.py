"""What the fleet's stores and the OP's ledger must show at the end, as pure functions of
what was read from them (so they are tested without a fleet).

* :func:`rotations`: the OP's ledger (:meth:`tests.oidc_op.provider.OpenIDProvider.ledger`)
  as refresh-token chains: which refresh tokens were presented (each must be once), refused,
  left live;
* :func:`held_tokens`: whether the refresh token each live session holds is one the OP
  would still take;
* :func:`duplicates`: users that share an e-mail, accounts linked twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import psycopg


@dataclass
class Rotations:
    """The refresh-token grants the OP answered."""

    refreshes: int = 0
    """Refresh grants answered with new tokens."""
    presented: Counter[str] = field(default_factory=Counter)
    """Refresh token digest → how many times it was sent to the token endpoint."""
    refused: list[dict[str, Any]] = field(default_factory=list)
    """Refresh grants the OP refused (a reused token, a revoked grant)."""
    revoked: set[str] = field(default_factory=set)
    """Grants the OP revoked (a logout at the OP, or a reused refresh token)."""
    grant_of: dict[str, str] = field(default_factory=dict)
    """Issued refresh token digest → its grant."""
    by_node: Counter[str] = field(default_factory=Counter)
    """Node → refresh grants it sent."""

    @property
    def reused(self) -> dict[str, int]:
        """Refresh tokens sent more than once (each a second token-endpoint call)."""
        return {digest: n for digest, n in self.presented.items() if n > 1}

    def state(self, digest: str) -> str:
        """``live`` (issued, never presented, its grant alive), ``spent`` (presented: the OP
        consumed it), ``revoked`` (its grant was revoked) or ``unknown`` (never issued)."""
        if digest not in self.grant_of:
            return "unknown"
        if self.grant_of[digest] in self.revoked:
            return "revoked"
        return "spent" if digest in self.presented else "live"


def rotations(ledger: Iterable[Mapping[str, Any]]) -> Rotations:
    """Read the OP's ledger."""
    found = Rotations()
    for entry in ledger:
        if "revoked" in entry:
            found.revoked.add(entry["revoked"])
            continue
        presented, issued = entry.get("presented"), entry.get("issued")
        if presented is not None:
            found.presented[presented] += 1
            found.by_node[entry.get("by") or "?"] += 1
        if entry.get("error"):
            if presented is not None:
                found.refused.append(dict(entry))
            continue
        if issued is not None:
            found.grant_of[issued] = entry["grant_id"]
        if entry.get("grant") == "refresh_token":
            found.refreshes += 1
    return found


def held_tokens(found: Rotations, held: Mapping[str, str | None]) -> dict[str, list[str]]:
    """The sessions by the state of the refresh token each holds (``held``: session name →
    digest, ``None`` for one the provider refused earlier, marked ``refused``)."""
    states: dict[str, list[str]] = {}
    for name, digest in held.items():
        state = "refused" if digest is None else found.state(digest)
        states.setdefault(state, []).append(name)
    return states


def duplicates(dsn: str) -> dict[str, list[str]]:
    """E-mail addresses with more than one user; accounts linked more than once."""
    with psycopg.connect(dsn) as conn:
        emails = conn.execute(
            "SELECT email FROM users GROUP BY email HAVING count(*) > 1"
        ).fetchall()
        accounts = conn.execute(
            "SELECT provider || ':' || \"providerAccountId\" FROM accounts "
            'GROUP BY provider, "providerAccountId" HAVING count(*) > 1'
        ).fetchall()
    return {"emails": [row[0] for row in emails], "accounts": [row[0] for row in accounts]}


def database_held_tokens(dsn: str) -> dict[str, str]:
    """User e-mail → the refresh token of their account, for each user with a live session."""
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            'SELECT u.email, a.refresh_token FROM accounts a JOIN users u ON u.id = a."userId" '
            'WHERE EXISTS (SELECT 1 FROM sessions s WHERE s."userId" = u.id AND s.expires > now())'
        ).fetchall()
    return {row[0]: row[1] for row in rows}


def counts(dsn: str) -> dict[str, int]:
    """Users, accounts and sessions in the database."""
    with psycopg.connect(dsn) as conn:
        return {
            table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[index]  # noqa: S608
            for table in ("users", "accounts", "sessions")
        }
