"""Fresh sessions (a difference from Auth.js, as Better Auth's ``freshAge``): the sensitive
operations (:data:`SENSITIVE`) need a session signed in at most ``session.fresh_age`` seconds
ago. It is one rule for all of them, asked through
:func:`.session_list.require_current` (``operation=``); the password and e-mail changes still
ask for the current password, and turning two-factor off or replacing it for a fresh code of
it, on top of it. Every way in that can be added to an account (a second factor, a passkey, a
provider's account) is sensitive: a stolen session that could add one would own the account.

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
        "enable-two-factor",
        "disable-two-factor",
        "link-account",
        "unlink-account",
        "delete-user",
    }
)
"""The operations that need a fresh sign-in: the routes ``change-password``,
``change-email``, ``two-factor-setup`` (setting up or replacing the authenticator app, and
turning it off), ``link/<provider>`` and every link of an account to the signed-in user (a
provider's account coming back signed in, a passkey registered while signed in),
``unlink/<provider>`` and ``delete-user``; and the runtime's ``unlink_account`` and
``delete_user``."""


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
