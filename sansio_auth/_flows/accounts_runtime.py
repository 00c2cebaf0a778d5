"""Account operations a binding runs for the server itself (not in Auth.js), never routed from
a browser: create a user with a password, set a user's password, and read or reset their
second factor (a lost phone). Each answers JSON; refused input answers ``400 {"error"}``."""

from __future__ import annotations

from .._context import Context, json_reply
from .._flow import Step, call_adapter, emit
from ..adapters import AdapterConflict
from ..errors import AdapterError, Configuration
from ..http import Response
from ..providers.email import normalize_email
from .accounts import FormError, password_provider
from .password import check_new_password, new_hash
from .strategies import utc


def create_user(
    ctx: Context, email: str, password: str, name: str | None, verified: bool
) -> Step[Response]:
    """``{"user": ...}``: a new user with this address and password."""
    provider = password_provider(ctx)
    try:
        password = yield from check_new_password(ctx, provider, password)
        address = normalize_email(email)
    except FormError as err:
        return ctx.respond(json_reply({"error": err.code}, status=400))
    except ValueError:
        return ctx.respond(json_reply({"error": "invalid_email"}, status=400))
    hashed = yield from new_hash(ctx, provider, password)
    adapter = ctx.settings.adapter
    user = {
        "id": ctx.random_uuid(),
        "email": address,
        "email_verified": utc(ctx.now) if verified else None,
        "name": name,
    }
    try:
        created = dict((yield from call_adapter(adapter, "create_user", user)))
    except AdapterError as err:
        if isinstance(err.cause.get("err"), AdapterConflict):
            return ctx.respond(json_reply({"error": "email_taken"}, status=400))
        raise
    try:
        yield from call_adapter(adapter, "set_password_hash", str(created["id"]), hashed)
    except Exception:
        yield from call_adapter(adapter, "delete_user", str(created["id"]))
        raise
    yield from emit(ctx.settings.events.create_user, "create_user", user=created)
    return ctx.respond(json_reply({"user": created}))


def set_password(ctx: Context, user_id: str, password: str) -> Step[Response]:
    """``{"set": true}``: the user's password is ``password`` from now on."""
    provider = password_provider(ctx)
    try:
        password = yield from check_new_password(ctx, provider, password)
    except FormError as err:
        return ctx.respond(json_reply({"error": err.code}, status=400))
    hashed = yield from new_hash(ctx, provider, password)
    yield from call_adapter(ctx.settings.adapter, "set_password_hash", user_id, hashed)
    return ctx.respond(json_reply({"set": True}))


def two_factor_status(ctx: Context, user_id: str) -> Step[Response]:
    """``{"enabled": bool, "recovery_codes_left": n}``."""
    _require_two_factor(ctx)
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", user_id)
    left = len(record.get("recovery_codes") or []) if record else 0
    return ctx.respond(json_reply({"enabled": bool(record), "recovery_codes_left": left}))


def reset_two_factor(ctx: Context, user_id: str) -> Step[Response]:
    """``{"reset": bool}``: the user's second factor is removed (they sign in with their first
    factor alone, or set one up again when it is required)."""
    _require_two_factor(ctx)
    removed = yield from call_adapter(ctx.settings.adapter, "delete_two_factor", user_id)
    return ctx.respond(json_reply({"reset": bool(removed)}))


def _require_two_factor(ctx: Context) -> None:
    if ctx.settings.two_factor is None:
        raise Configuration("two-factor authentication is off (AuthConfig.two_factor)")
