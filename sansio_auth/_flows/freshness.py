"""Fresh sessions (a difference from Auth.js, as Better Auth's ``freshAge``): sensitive actions
(unlinking an account, deleting the user, changing a password or an address, turning
two-factor off) need a session signed in at most ``session.fresh_age`` seconds ago.

A session's sign-in time is its ``auth_time`` claim (JWT sessions; the OpenID Connect claim
of the same meaning) or its row's ``created_at`` (database sessions): both are set when a
sign-in issues the session, and never moved by its refreshes. Signing in again (even while
signed in) issues a new session, fresh.
"""

from __future__ import annotations

from ..errors import SessionNotFresh


def is_fresh(signed_in_at: float | None, now: float, fresh_age: int) -> bool:
    """Whether a session signed in at ``signed_in_at`` (Unix seconds; ``None``: unknown, as in a
    session issued before sign-in times were kept) may do a sensitive action at ``now``.

    ``fresh_age`` 0 turns the check off. A sign-in time after ``now`` (another server's clock
    a little ahead) counts as just now.
    """
    if fresh_age == 0:
        return True
    if signed_in_at is None:
        return False
    return now - signed_in_at <= fresh_age


def check_fresh(signed_in_at: float | None, now: float, fresh_age: int) -> None:
    """:class:`SessionNotFresh` unless :func:`is_fresh`."""
    if not is_fresh(signed_in_at, now, fresh_age):
        raise SessionNotFresh(
            f"this needs a sign-in within the last {fresh_age} seconds: sign in again"
        )
