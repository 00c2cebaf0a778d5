"""The signed-in user's own sessions (not in Auth.js; Better Auth's ``listSessions``,
``revokeSession``, ``revokeOtherSessions``): who is signed in, their live sessions, and
ending some of them.

Each session strategy answers these its own way (:data:`LISTS`, looked up by
:func:`session_list`, as :mod:`.strategies` is). A session is named by a public id: a JWT
session's ``sid`` claim; for a database session a hash of its token (the token is the
cookie's secret and never leaves the server). The pure decisions (which sessions are live,
which "the others" are, which ids name sessions of the user) come first.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable
from typing import Any

import msgspec

from .._context import Context
from .._flow import Step, call_adapter
from ..cookies import read_chunked
from ..errors import RecordNotFound, RevocationRequired, SessionRequired
from .freshness import SENSITIVE, check_fresh
from .revocation import revoke
from .session_records import records_kept
from .strategies import live_token, session_and_user, timestamp


class CurrentSession(msgspec.Struct, frozen=True, kw_only=True):
    """The browser's live session and its user."""

    user: dict[str, Any]
    """The stored user; for a JWT session whose user is not stored (a credentials sign-in),
    ``id`` (the token's ``sub``), ``name`` and ``email`` from the token."""
    stored: bool
    """Whether ``user`` is stored (it has accounts, and can be deleted)."""
    session_id: str | None
    """The session's public id (``None``: a JWT session issued without ``sid``)."""
    signed_in_at: float | None
    """When the sign-in that issued it happened (``None``: not known), for freshness."""
    provider_sid: str | None = None
    """A database session's provider session (``sid``), which a back-channel logout ends."""

    @property
    def user_id(self) -> str:
        """The user's id."""
        return str(self.user["id"])


class ListedSession(msgspec.Struct, frozen=True, kw_only=True):
    """One of the user's sessions, as the list shows it (times in Unix seconds)."""

    id: str
    """Its public id."""
    key: str = msgspec.field(default="")
    """What ending it takes (a database token, a JWT ``sid``): never shown."""
    current: bool = False
    created_at: float | None = None
    last_seen_at: float | None = None
    expires: float
    user_agent: str | None = None
    ip_address: str | None = None


def public_id(session_token: str) -> str:
    """A database session's public id: a hash of its token (which it does not reveal)."""
    return hashlib.sha256(b"sansio-auth session:" + session_token.encode()).hexdigest()[:32]


def live(sessions: Iterable[ListedSession], now: float) -> list[ListedSession]:
    """The sessions not expired at ``now``: the current one first, then the most recently
    seen (then the most recently created)."""
    alive = [s for s in sessions if s.expires > now]
    return sorted(
        alive, key=lambda s: (not s.current, -(s.last_seen_at or 0), -(s.created_at or 0), s.id)
    )


def others(sessions: Iterable[ListedSession], current_id: str | None) -> list[ListedSession]:
    """What "end every other session" ends: each listed session but the current one."""
    return [s for s in sessions if s.id != current_id]


def chosen(sessions: Iterable[ListedSession], ids: Collection[str]) -> list[ListedSession]:
    """The sessions named by ``ids``; :class:`RecordNotFound` when one names none of them
    (checked before anything is ended)."""
    by_id = {s.id: s for s in sessions}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise RecordNotFound("no such session of this user")
    return [by_id[i] for i in dict.fromkeys(ids)]


class SessionList(ABC):
    """What the user's own sessions are, for one session strategy."""

    @abstractmethod
    def current(self, ctx: Context, value: str) -> Step[CurrentSession | None]:
        """The live session of the cookie ``value`` and its user, or ``None``."""

    @abstractmethod
    def listed(self, ctx: Context, current: CurrentSession) -> Step[list[ListedSession]]:
        """The user's live sessions (see :func:`live`), the current one marked."""

    @abstractmethod
    def end(self, ctx: Context, sessions: Iterable[ListedSession]) -> Step[None]:
        """End ``sessions`` (listed by :meth:`listed`)."""


def session_list(ctx: Context) -> SessionList:
    """The session list of ``ctx``'s strategy."""
    return LISTS[ctx.settings.strategy]


def current_session(ctx: Context) -> Step[CurrentSession | None]:
    """The browser's live session and its user, or ``None`` when signed out."""
    value, _ = read_chunked(ctx.cookies, ctx.cookie_specs.session_token.name)
    if value is None:
        return None
    return (yield from session_list(ctx).current(ctx, value))


def require_current(ctx: Context, *, operation: str | None = None) -> Step[CurrentSession]:
    """:func:`current_session`, or :class:`SessionRequired`; for an ``operation`` of
    :data:`~.freshness.SENSITIVE`, also :class:`~sansio_auth.errors.SessionNotFresh` unless it
    signed in within ``session.fresh_age`` (every sensitive operation asks this way)."""
    current = yield from current_session(ctx)
    if current is None:
        raise SessionRequired("sign in first")
    check_operation(ctx, current, operation)
    return current


def check_operation(ctx: Context, current: CurrentSession, operation: str | None) -> None:
    """:class:`~sansio_auth.errors.SessionNotFresh` when ``operation`` is sensitive and
    ``current`` did not sign in within ``session.fresh_age``."""
    if operation in SENSITIVE:
        check_fresh(current.signed_in_at, ctx.now, ctx.settings.session.fresh_age)


def _has_credentials(ctx: Context) -> bool:
    """Whether a Credentials provider may have signed in a user who is not stored."""
    return any(p.type == "credentials" for p in ctx.settings.providers_by_id.values())


def _seconds(value: Any) -> float | None:
    return None if value is None else timestamp(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class DatabaseSessionList(SessionList):
    """The user's session rows."""

    def current(self, ctx: Context, value: str) -> Step[CurrentSession | None]:
        found = session_and_user(
            (yield from call_adapter(ctx.settings.adapter, "get_session_and_user", value))
        )
        if found is None or timestamp(found[0]["expires"]) <= ctx.now:
            return None
        session, user = found
        return CurrentSession(
            user=dict(user),
            stored=True,
            session_id=public_id(value),
            signed_in_at=_seconds(session.get("created_at")),
            provider_sid=_text(session.get("sid")),
        )

    def listed(self, ctx: Context, current: CurrentSession) -> Step[list[ListedSession]]:
        rows = yield from call_adapter(
            ctx.settings.adapter, "list_sessions_by_user_id", current.user_id
        )
        sessions = []
        for row in rows or ():
            token = str(row["session_token"])
            session_id = public_id(token)
            sessions.append(
                ListedSession(
                    id=session_id,
                    key=token,
                    current=session_id == current.session_id,
                    created_at=_seconds(row.get("created_at")),
                    last_seen_at=_seconds(row.get("last_seen_at")),
                    expires=timestamp(row["expires"]),
                    user_agent=_text(row.get("user_agent")),
                    ip_address=_text(row.get("ip_address")),
                )
            )
        return live(sessions, ctx.now)

    def end(self, ctx: Context, sessions: Iterable[ListedSession]) -> Step[None]:
        for session in sessions:
            yield from call_adapter(ctx.settings.adapter, "delete_session", session.key)


class JWTSessionList(SessionList):
    """The records of the user's JWT sessions (``session.revocation``)."""

    def current(self, ctx: Context, value: str) -> Step[CurrentSession | None]:
        token = yield from live_token(ctx, value)
        if token is None:
            return None
        sub = token["sub"]
        adapter = ctx.settings.adapter
        found = None
        if callable(getattr(adapter, "get_user", None)):
            found = yield from call_adapter(adapter, "get_user", sub)
            if not found and not _has_credentials(ctx):
                return None  # the user was deleted: only a credentials sign-in is not stored
        user = dict(found) if found else {"id": sub}
        if not found:
            user.update({k: token[k] for k in ("name", "email") if isinstance(token.get(k), str)})
        signed_in = token.get("auth_time")
        return CurrentSession(
            user=user,
            stored=bool(found),
            session_id=_text(token.get("sid")),
            signed_in_at=signed_in if isinstance(signed_in, int | float) else None,
        )

    def listed(self, ctx: Context, current: CurrentSession) -> Step[list[ListedSession]]:
        if not records_kept(ctx):
            raise RevocationRequired(
                "listing and ending JWT sessions needs session={'revocation': True}"
            )
        records = yield from call_adapter(
            ctx.settings.adapter, "list_session_records", current.user_id
        )
        sessions = [
            ListedSession(
                id=str(record["sid"]),
                key=str(record["sid"]),
                current=record["sid"] == current.session_id,
                created_at=_seconds(record.get("created_at")),
                last_seen_at=_seconds(record.get("last_seen_at")),
                expires=timestamp(record["expires"]),
                user_agent=_text(record.get("user_agent")),
                ip_address=_text(record.get("ip_address")),
            )
            for record in records or ()
        ]
        return live(sessions, ctx.now)

    def end(self, ctx: Context, sessions: Iterable[ListedSession]) -> Step[None]:
        for session in sessions:  # refused from now on (its record forgotten)
            yield from revoke(ctx, sid=session.key)


LISTS: dict[str, SessionList] = {"jwt": JWTSessionList(), "database": DatabaseSessionList()}
"""One stateless instance per ``session.strategy``."""
