"""What the runtimes' calls on a user's own sessions and accounts give back (not in Auth.js):
``list_sessions``, ``revoke_session``, ``revoke_other_sessions``, ``list_accounts``,
``unlink_account`` and ``delete_user`` of :class:`io_bindings.anyio.Auth` and
:class:`io_bindings.sync.SyncAuth`.

Each runs the engine's operation of the same name (as the security page's routes do, but
without a CSRF token: the server asks) for the session of the browser's request. A refusal
raises the engine's error of that type (:class:`~sansio_auth.errors.SessionRequired`,
:class:`~sansio_auth.errors.SessionNotFresh`, :class:`~sansio_auth.errors.RecordNotFound`,
:class:`~sansio_auth.errors.LastSignInMethod`, ...).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from sansio_auth import Cookie, Response, errors

__all__ = ["Change", "LinkedAccount", "UserSession", "accounts_of", "answer", "sessions_of"]


class UserSession(msgspec.Struct, frozen=True, kw_only=True):
    """One of the user's live sessions."""

    id: str
    """Its public id (what :meth:`~io_bindings.anyio.Auth.revoke_session` takes)."""
    current: bool
    """Whether it is the session of the request asked about."""
    created_at: datetime | None
    """When its sign-in happened (``None``: not known)."""
    last_seen_at: datetime | None
    expires: datetime
    user_agent: str | None
    ip_address: str | None
    """Only with ``session={"track_ip_address": True}``."""


class LinkedAccount(msgspec.Struct, frozen=True, kw_only=True):
    """One of the user's linked accounts."""

    provider: str
    provider_name: str
    type: str
    provider_account_id: str
    can_unlink: bool
    """False when it is the user's last way to sign in."""


class Change(msgspec.Struct, frozen=True, kw_only=True):
    """What a call changed: how many sessions ended (or accounts unlinked, users deleted),
    and the cookies the response to the browser must carry (its session cookie deleted
    when its own session ended)."""

    count: int
    cookies: tuple[Cookie, ...] = ()

    def set_cookie_headers(self) -> list[str]:
        """The ``Set-Cookie`` header values to add to the response."""
        return [cookie.header_value() for cookie in self.cookies]


def _error_classes() -> dict[str, type[errors.AuthError]]:
    found: dict[str, type[errors.AuthError]] = {}
    pending: list[type[errors.AuthError]] = [errors.AuthError]
    while pending:
        cls = pending.pop()
        found.setdefault(cls.type, cls)
        pending.extend(cls.__subclasses__())
    return found


_ERRORS = _error_classes()


def answer(response: Response) -> Any:
    """The result of an operation's response; its refusal raised as the engine's error."""
    body = response.json()
    if response.status != 200:
        raise _ERRORS.get(str(body.get("error")), errors.AuthError)(str(body.get("message", "")))
    return body


def _time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value.replace("Z", "+00:00"))


def sessions_of(response: Response) -> list[UserSession]:
    """The sessions a ``list-sessions`` response lists."""
    return [
        UserSession(
            id=s["id"],
            current=s["current"],
            created_at=_time(s["createdAt"]),
            last_seen_at=_time(s["lastSeenAt"]),
            expires=datetime.fromisoformat(s["expires"].replace("Z", "+00:00")),
            user_agent=s["userAgent"],
            ip_address=s["ipAddress"],
        )
        for s in answer(response)
    ]


def accounts_of(response: Response) -> list[LinkedAccount]:
    """The accounts a ``list-accounts`` response lists."""
    return [
        LinkedAccount(
            provider=a["provider"],
            provider_name=a["providerName"],
            type=a["type"],
            provider_account_id=a["providerAccountId"],
            can_unlink=a["canUnlink"],
        )
        for a in answer(response)
    ]


def change_of(response: Response) -> Change:
    """The :class:`Change` of a revoke, unlink or delete response."""
    body = answer(response)
    count = body.get("revoked", 1) if isinstance(body, dict) else 1
    return Change(count=int(count), cookies=response.cookies)
