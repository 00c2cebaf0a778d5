"""Revocable sessions (a difference from Auth.js): "sign out everywhere" and ending a JWT
session before it expires.

Database sessions are revoked by deleting their rows. A JWT session cannot be deleted,
so with ``session.revocation`` on it carries a ``sid`` and the time it was signed in
(``auth_time``), and the adapter keeps "not before" marks: a session read refuses a token
signed in at or before the latest mark of its user (``user:<id>``), its ``sid``
(``sid:<sid>``) or its provider session (``op:<provider>:<sid>``, from back-channel logout).
The sign-in time, not the token's ``iat``: a token re-issued (``update_age``, a refresh, a new
secret) by a process that has not seen a revocation yet stays revoked; only a revocation that
keeps the browser's own session (a password change) moves the time it is judged by
(:data:`KEPT_AT`). Answers are memoised for
``session.revocation_cache_ttl`` seconds in the engine's cache; a revocation made
through this engine forgets them at once. Each mark is made with the time it may be
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


def judged_from(token: Mapping[str, Any]) -> Any:
    """The time revocations judge ``token`` by: when a revocation kept it (``kept_at``), else
    when it was signed in (``auth_time``), else when it was issued (``iat``: a token made by
    Auth.js, or by a ``jwt`` callback that dropped the others)."""
    for claim in (KEPT_AT, "auth_time", "iat"):
        if claim in token:
            return token[claim]
    return None


def is_revoked(ctx: Context, token: Mapping[str, Any]) -> Step[bool]:
    """Whether the JWT session ``token`` was signed in (:func:`judged_from`) at or before a
    revocation of its keys."""
    keys = session_keys(token)
    since = judged_from(token)
    if not keys or isinstance(since, bool) or not isinstance(since, int | float):
        return False
    cache, memo = ctx.cache.revocations, "|".join(keys)
    mark = cache.get(memo, ctx.now)
    if mark is None:
        found = yield from call_adapter(ctx.settings.adapter, "get_sessions_not_before", keys)
        if found is not None and not isinstance(found, datetime):
            raise Configuration("`get_sessions_not_before` must return a datetime or None")
        mark = 0.0 if found is None else found.timestamp()
        cache.put(memo, mark, now=ctx.now, ttl=ctx.settings.session.revocation_cache_ttl)
    return bool(mark) and since <= mark


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
    :data:`KEPT_AT` now: the marks go one second back (so it stays live) and its record
    stays."""
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
        now = datetime.fromtimestamp(ctx.now - (1 if keep_sid else 0), UTC)
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
