"""What the store keeps of each session for the user's list of sessions (not in Auth.js).

A database session is its row: created with its sign-in time (``created_at``), the browser's
user agent (and, with ``session.track_ip_address``, its address); its ``last_seen_at`` moves
with its expiry, once per ``update_age``, in the same write.

A JWT session lives in its cookie, so with ``session.revocation`` the store keeps a record of
it by its ``sid`` claim: registered when the session is issued (before its cookie is set: a
sign-in whose record cannot be kept fails), touched whenever the cookie is re-issued (its
``last_seen_at`` is the live token's ``iat``: once per ``update_age``, and when the token
changes, as a provider's access token is refreshed; never on a plain read), dropped at
sign-out or when a revoked cookie comes back. The strategies (:mod:`.strategies`) call these
at those points.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from .._context import Context
from .._flow import Step, call_adapter, is_conflict, log_error
from ..ratelimit import client_address

KEPT_AT = "kept_at"
"""The claim of a JWT session that a revocation of its user kept signed in (the browser that
changed the password): the time of that revocation, which therefore does not end it, while
any later one does (:func:`.revocation.revoked_by`); its ``auth_time`` stays its sign-in's
(how fresh it is)."""
SIGN_IN_CLAIMS = ("sid", "auth_time", KEPT_AT)
"""The claims of a JWT session that name it and date its sign-in: a session re-issued for the
same sign-in (an account linked while signed in) keeps them."""
MAX_USER_AGENT = 512
"""Characters of a ``User-Agent`` kept (the rest is cut off)."""


def records_kept(ctx: Context) -> bool:
    """Whether JWT sessions are recorded: JWT sessions with ``session.revocation``."""
    return ctx.settings.strategy == "jwt" and ctx.settings.session.revocation


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def device(ctx: Context) -> dict[str, str | None]:
    """The browser's user agent and (with ``session.track_ip_address``) address, as a
    session keeps them: the address the rate limits count (``X-Forwarded-For`` only behind
    ``rate_limits.trusted_proxies``)."""
    agent = ctx.request.header("user-agent")
    tracked = ctx.settings.session.track_ip_address
    return {
        "user_agent": agent[:MAX_USER_AGENT] if agent else None,
        "ip_address": (
            client_address(ctx.request, ctx.settings.rate_limits.trusted_proxies)
            if tracked
            else None
        ),
    }


def database_session_fields(ctx: Context, signed_in_at: float | None = None) -> dict[str, Any]:
    """The keys a new database session row has beyond Auth.js's (``signed_in_at``: the
    sign-in it goes on from, else now)."""
    now = _utc(ctx.now)
    created = now if signed_in_at is None else _utc(signed_in_at)
    return {"created_at": created, "last_seen_at": now, **device(ctx)}


def register(ctx: Context, token: Mapping[str, Any], expires: float) -> Step[None]:
    """Keep the record of the new JWT session ``token`` (its ``sid`` and ``sub``); a failure
    is raised (the sign-in fails rather than leave a session nobody can see or end)."""
    sid, sub = token.get("sid"), token.get("sub")
    if not isinstance(sid, str) or not isinstance(sub, str):
        return
    signed_in = token.get("auth_time")
    record = {
        "sid": sid,
        "user_id": sub,
        "expires": _utc(expires),
        "created_at": _utc(signed_in if isinstance(signed_in, int | float) else ctx.now),
        "last_seen_at": _utc(ctx.now),
        **device(ctx),
    }
    yield from call_adapter(ctx.settings.adapter, "create_session_record", record)


def touch(ctx: Context, token: Mapping[str, Any], expires: float) -> Step[None]:
    """The JWT session ``token`` was seen now and lives until ``expires``: its record says so,
    made anew if it is missing (every session that can still be read is listed). A failure is
    logged: the session goes on."""
    sid = token.get("sid")
    if not isinstance(sid, str):
        return
    try:
        touched = yield from call_adapter(
            ctx.settings.adapter, "touch_session_record", sid, _utc(ctx.now), _utc(expires)
        )
        if touched is None:
            yield from register(ctx, token, expires)
    except Exception as err:
        if not is_conflict(err):  # made meanwhile by a concurrent read: it is there
            yield from log_error(err)


def drop(ctx: Context, sid: Any) -> Step[None]:
    """Forget the record of the JWT session ``sid`` (ended); a failure is logged."""
    if not isinstance(sid, str):
        return
    try:
        yield from call_adapter(ctx.settings.adapter, "delete_session_record", sid)
    except Exception as err:
        yield from log_error(err)
