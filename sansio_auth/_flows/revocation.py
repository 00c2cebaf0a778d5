"""Revocable sessions (a difference from Auth.js): "sign out everywhere" and ending a JWT
session before it expires.

Database sessions are revoked by deleting their rows. A JWT session cannot be deleted,
so with ``session.revocation`` on it carries a ``sid`` and the time it was signed in
(``auth_time``), and the adapter keeps "not before" marks: a session read refuses a token
signed in at or before the latest mark of its user (``user:<id>``), its ``sid``
(``sid:<sid>``) or its provider session (``op:<provider>:<sid>``, from back-channel logout).
The sign-in time, not the token's ``iat``: a token re-issued (``update_age``, a refresh, a new
secret) by a process that has not seen a revocation yet stays revoked. A revocation that
keeps the browser's own session (a password change ends every other one) marks the user at
the time it was made, to the millisecond, and re-issues that session with the very same time
as its :data:`KEPT_AT` claim: the mark covers every other session of the user, whenever it
signed in, and a later revocation covers the kept one too (:func:`revoked_by`). Answers are
memoised for ``session.revocation_cache_ttl`` seconds in the engine's cache; a revocation
made through this engine forgets them at once. Each mark is made with the time it may be
forgotten (``jwt.max_age``, the decoder's 15 s and ``revocation_cache_ttl`` later: every
token it covers has expired by then, even one re-issued by a process that had not seen the
mark yet), so the stores do not grow with revocations.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from .._context import Context
from .._flow import Step, call_adapter, log_error
from ..errors import Configuration, MissingAdapter
from ..jwt import CLOCK_TOLERANCE
from .refresh import STATE_CLAIM, provider_session_key
from .session_records import KEPT_AT, drop, records_kept


def session_keys(token: Mapping[str, Any]) -> list[str]:
    """The revocation keys a JWT session token answers to."""
    keys = []
    if isinstance(token.get("sub"), str):
        keys.append(f"user:{token['sub']}")
    if isinstance(token.get("sid"), str):
        keys.append(f"sid:{token['sid']}")
    state = token.get(STATE_CLAIM)
    if isinstance(state, Mapping) and isinstance(state.get("sid"), str):
        keys.append(provider_session_key(str(state.get("provider")), state["sid"]))
    return keys


def revoked_by(token: Mapping[str, Any], mark: float) -> bool:
    """Whether the latest revocation ``mark`` (Unix seconds, 0 for none) of ``token``'s keys
    ends it: a token a revocation kept (:data:`KEPT_AT`) by a mark made after it; any other by
    a mark at or after its sign-in (``auth_time``; ``iat`` for a token made by Auth.js, or by
    a ``jwt`` callback that dropped the others). A token with no such time is never revoked."""
    kept = _time(token.get(KEPT_AT))
    if kept is not None:  # marks are kept to the millisecond: a later one is later by one
        return mark - kept > 0.0005
    since = _time(token.get("auth_time", token.get("iat")))
    return bool(mark) and since is not None and since <= mark


def _time(value: Any) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def revocation_time(ctx: Context) -> float:
    """When a revocation made now is: the clock to the millisecond, as every store keeps
    marks (the session a revocation keeps carries the same time, see :func:`revoked_by`)."""
    return round(ctx.now, 3)


def is_revoked(ctx: Context, token: Mapping[str, Any]) -> Step[bool]:
    """Whether the JWT session ``token`` is ended by a revocation of its keys
    (:func:`revoked_by`)."""
    keys = session_keys(token)
    if not keys:
        return False
    cache, memo = ctx.cache.revocations, "|".join(keys)
    mark = cache.get(memo, ctx.now)
    if mark is None:
        found = yield from call_adapter(ctx.settings.adapter, "get_sessions_not_before", keys)
        if found is not None and not isinstance(found, datetime):
            raise Configuration("`get_sessions_not_before` must return a datetime or None")
        mark = 0.0 if found is None else found.timestamp()
        cache.put(memo, mark, now=ctx.now, ttl=ctx.settings.session.revocation_cache_ttl)
    return revoked_by(token, mark)


def revoke(
    ctx: Context,
    *,
    user_id: str | None = None,
    sid: str | None = None,
    key: str | None = None,
    keep_sid: str | None = None,
) -> Step[int]:
    """End the sessions of ``user_id`` and/or ``sid`` (or of a raw revocation ``key``): database
    rows of the user are deleted (how many is returned); JWT sessions are marked revoked (and
    their records, when kept, forgotten).

    ``keep_sid`` names the browser's JWT session, which the caller re-issues at once with
    :data:`KEPT_AT` at :func:`revocation_time` (so it stays live); its record stays."""
    settings = ctx.settings
    adapter = settings.adapter
    if user_id is None and sid is None and key is None:
        raise Configuration("revoke_sessions needs a user_id or a sid")
    if adapter is None:
        raise MissingAdapter("revoking sessions requires an adapter")
    deleted = 0
    if settings.strategy == "database":
        if user_id is None:
            raise Configuration("database sessions are revoked by user_id")
        deleted = yield from call_adapter(adapter, "delete_sessions_by_user_id", user_id)
    elif not settings.session.revocation:
        raise Configuration("revoking JWT sessions needs session={'revocation': True}")
    else:
        now = datetime.fromtimestamp(revocation_time(ctx), UTC)
        expires = session_mark_expiry(ctx)
        keys = [f"user:{user_id}"] if user_id is not None else []
        keys += [f"sid:{sid}"] if sid is not None else []
        keys += [key] if key is not None else []
        for each in keys:
            yield from call_adapter(adapter, "set_sessions_not_before", each, now, expires)
        ctx.cache.revocations.clear()
        if records_kept(ctx):
            yield from forget_records(ctx, user_id=user_id, sid=sid, keep=keep_sid)
    return int(deleted or 0)


def sessions_cannot_end(ctx: Context) -> str | None:
    """Why the sessions of a user cannot be ended before they expire (``None``: they can):
    database sessions need the adapter's ``delete_sessions_by_user_id``, JWT sessions
    ``session.revocation``."""
    settings = ctx.settings
    if settings.strategy == "database":
        if not callable(getattr(settings.adapter, "delete_sessions_by_user_id", None)):
            return "the adapter has no delete_sessions_by_user_id"
        return None
    if not settings.session.revocation:
        return "JWT sessions cannot be ended before they expire without session.revocation"
    return None


def end_jwt_session(ctx: Context, sid: Any) -> Step[None]:
    """The JWT session ``sid`` is over (signed out, or replaced by a new sign-in in its
    browser): revoke it, so a copy of its cookie reads no session either, and forget its
    record. A failure is logged: the browser's cookie goes all the same."""
    if not isinstance(sid, str):
        return
    try:
        yield from revoke(ctx, sid=sid)
    except Exception as err:
        yield from log_error(err)


def forget_records(
    ctx: Context, *, user_id: str | None = None, sid: str | None = None, keep: str | None = None
) -> Step[None]:
    """Forget the records of revoked JWT sessions (the marks already refuse them): of the
    session ``sid`` and/or of every session of ``user_id`` but ``keep`` (a ``sid``)."""
    sids = [sid] if sid is not None else []
    if user_id is not None:
        try:
            records = yield from call_adapter(ctx.settings.adapter, "list_session_records", user_id)
        except Exception as err:  # the sessions are ended: only their records linger
            yield from log_error(err)
            records = []
        sids += [record["sid"] for record in records or ()]
    for each in dict.fromkeys(sids):
        if each != keep:
            yield from drop(ctx, each)


def mark_expiry(ctx: Context, seconds: float) -> datetime:
    """When a mark made now may be forgotten: once no token it covers can still be valid
    (a session token issued before now expires ``jwt_max_age`` after it was issued, with
    the decoder's tolerance; a logout token is refused ``MAX_AGE`` after its ``iat``)."""
    return datetime.fromtimestamp(ctx.now + seconds, UTC)


def session_mark_expiry(ctx: Context) -> datetime:
    """When a sessions' mark made now may be forgotten: a process that has not seen it yet
    (for ``revocation_cache_ttl``) may still re-issue a token it covers."""
    settings = ctx.settings
    ttl = settings.session.revocation_cache_ttl
    return mark_expiry(ctx, settings.jwt_max_age + CLOCK_TOLERANCE + ttl)
