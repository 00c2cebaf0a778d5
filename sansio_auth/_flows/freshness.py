"""Fresh sessions (a difference from Auth.js, as Better Auth's ``freshAge``): the sensitive
operations (:data:`SENSITIVE`) need a session signed in at most ``session.fresh_age`` seconds
ago. It is one rule for all of them, asked through
:func:`.session_list.require_current` (``operation=``); the password and e-mail changes still
ask for the current password, and turning two-factor off for a fresh code, on top of it.

A session's sign-in time is its ``auth_time`` claim (JWT sessions; the OpenID Connect claim
of the same meaning) or its row's ``created_at`` (database sessions): both are set when a
sign-in issues the session, and never moved by its refreshes (nor by the re-issue that keeps
the browser signed in after a password change). Signing in again (even while signed in)
issues a new session, fresh.
"""

from __future__ import annotations

from ..errors import SessionNotFresh

SENSITIVE = frozenset(
    {
        "change-password",
        "change-email",
        "disable-two-factor",
        "unlink-account",
        "delete-user",
    }
)
"""The operations that need a fresh sign-in (the routes ``change-password``,
``change-email``, ``two-factor-setup`` with ``action=disable``, ``unlink/<provider>`` and
``delete-user``, and the runtime's ``unlink_account`` and ``delete_user``)."""


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
