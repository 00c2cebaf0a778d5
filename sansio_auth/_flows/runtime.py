"""Flows a binding runs for the server itself, never routed from a browser: the
session's provider access token, and ending sessions ("sign out everywhere")."""

from __future__ import annotations

from .._context import Context, Reply, json_reply
from .._flow import Step
from ..oauth.refresh import usable_access_token
from .revocation import revoke
from .session import get_session


def access_token(ctx: Context, provider_id: str) -> Step[Reply]:
    """``{"access_token": ...}``: the provider's valid access token for the session of
    ``ctx`` (refreshed if due), or ``null``; the reply keeps the session read's cookies."""
    yield from get_session(ctx)
    state = ctx.token_states.get(provider_id)
    token = None if state is None else usable_access_token(state, ctx.now)
    return json_reply({"access_token": token})


def revoke_sessions(ctx: Context, user_id: str | None, sid: str | None) -> Step[Reply]:
    """``{"deleted": n}``: the sessions of ``user_id`` and/or ``sid`` are ended (database rows
    deleted, JWT sessions refused from now on)."""
    deleted = yield from revoke(ctx, user_id=user_id, sid=sid)
    return json_reply({"deleted": deleted})
