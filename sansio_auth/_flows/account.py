"""A signed-in user's password and address (not in Auth.js): ``GET|POST change-password``
and ``GET|POST change-email``, and ending the user's sessions.

Both are sensitive operations (:mod:`.freshness`): they need a session signed in within
``session.fresh_age``, and then the current password too (when the user has one). A new
password ends the user's other sessions; a new address takes effect once the link mailed to
it is followed (``verify-email``).
"""

from __future__ import annotations

from typing import Any

from .._context import Context, Reply
from .._flow import Step, call_adapter, log_error, log_warning, verify_password
from ..cookies import read_chunked
from ..http import Page
from ..providers import PasswordProvider
from .accounts import (
    FormError,
    answer,
    notice,
    password_provider,
    security_url,
    send_link,
    signed_in,
)
from .limits import email_attempt, password_attempt
from .password import _address, check_new_password, new_hash
from .revocation import revocation_time, revoke, sessions_cannot_end
from .session_list import CurrentSession
from .session_records import KEPT_AT, touch
from .strategies import create_database_session


def change_password_page(ctx: Context) -> Step[Reply]:
    """The form: current and new password (signed in only)."""
    provider = password_provider(ctx)
    current = yield from signed_in(ctx, "change-password")
    if isinstance(current, Reply):
        return current
    return _password_form(ctx, provider, "", status=200)


def _password_form(ctx: Context, provider: PasswordProvider, error: str, *, status: int) -> Reply:
    context = {
        "action_url": ctx.url("change-password"),
        "csrf_token": ctx.csrf_token(),
        "error": error or None,
        "min_length": provider.min_length,
        "max_length": provider.max_length,
        "security_url": security_url(ctx),
    }
    return answer(ctx, Page("change-password", context), {"error": error}, status)


def change_password(ctx: Context) -> Step[Reply]:
    """Check the current password, store the new one, end the user's other sessions."""
    ctx.check_csrf()
    provider = password_provider(ctx)
    current = yield from signed_in(ctx, "change-password")
    if isinstance(current, Reply):
        return current
    user_id = current.user_id
    refused = yield from password_attempt(ctx, provider.id, _account(current.user))
    if refused is not None:
        return refused
    try:
        yield from _check_current(ctx, provider, user_id, ctx.form.get("current_password"))
        password = yield from check_new_password(ctx, provider, ctx.form.get("new_password"))
    except FormError as err:
        return _password_form(ctx, provider, err.code, status=400)
    hashed = yield from new_hash(ctx, provider, password)
    yield from call_adapter(ctx.settings.adapter, "set_password_hash", user_id, hashed)
    yield from end_sessions(ctx, user_id, keep=current)
    return notice(ctx, "password-changed", ctx.origin, {"changed": True})


def _check_current(
    ctx: Context, provider: PasswordProvider, user_id: str, given: Any
) -> Step[None]:
    """:class:`FormError` unless ``given`` is the user's password (``no_password`` when they
    have none: they set one through a reset link, which proves the address)."""
    stored = yield from call_adapter(ctx.settings.adapter, "get_password_hash", user_id)
    if stored is None:
        raise FormError("no_password")
    if not isinstance(given, str) or len(given) > 4 * provider.max_length:
        raise FormError("wrong_password")
    checked = yield from verify_password(
        given, stored, provider.argon2, ctx.settings.password_hasher
    )
    if not checked.valid:
        raise FormError("wrong_password")


def change_email_page(ctx: Context) -> Step[Reply]:
    """The form: the new address (and the password, when the user has one)."""
    password_provider(ctx)
    current = yield from signed_in(ctx, "change-email")
    if isinstance(current, Reply):
        return current
    return (yield from _email_form(ctx, current.user, "", status=200))


def _email_form(ctx: Context, user: dict[str, Any], error: str, *, status: int) -> Step[Reply]:
    stored = yield from call_adapter(ctx.settings.adapter, "get_password_hash", str(user["id"]))
    context = {
        "action_url": ctx.url("change-email"),
        "csrf_token": ctx.csrf_token(),
        "current_email": str(user.get("email") or ""),
        "asks_password": stored is not None,
        "error": error or None,
        "email": str(ctx.form.get("email") or ""),
        "security_url": security_url(ctx),
    }
    return answer(ctx, Page("change-email", context), {"error": error}, status)


def change_email(ctx: Context) -> Step[Reply]:
    """Mail the new address a link that makes it the user's (nothing changes before).

    A new address that another account uses gets no link, and the answer is the same.
    """
    ctx.check_csrf()
    provider = password_provider(ctx)
    current = yield from signed_in(ctx, "change-email")
    if isinstance(current, Reply):
        return current
    user, user_id = current.user, current.user_id
    try:
        email = _address(ctx.form.get("email"))
        if email is None:
            raise FormError("invalid_email")
        if email == user.get("email"):
            raise FormError("same_email")
        stored = yield from call_adapter(ctx.settings.adapter, "get_password_hash", user_id)
        refused = None
        if stored is not None:
            refused = yield from password_attempt(ctx, provider.id, _account(user))
        if refused is None:
            refused = yield from email_attempt(ctx, provider.id, email)
        if refused is not None:
            return refused
        if stored is not None:
            yield from _check_current(ctx, provider, user_id, ctx.form.get("password"))
    except FormError as err:
        return (yield from _email_form(ctx, user, err.code, status=400))
    if not (yield from call_adapter(ctx.settings.adapter, "get_user_by_email", email)):
        identifier = f"change-email:{user_id}:{email}"
        yield from send_link(
            ctx,
            provider,
            "change-email",
            to=email,
            identifier=identifier,
            max_age=provider.verify_max_age,
            route="verify-email",
            email=email,
            user=user_id,
        )
    return notice(ctx, "email-link-sent", ctx.origin, {"sent": True})


def _account(user: dict[str, Any]) -> str:
    """What a signed-in user's password checks count against: their address (as a password
    sign-in naming it does), else their id."""
    return _address(user.get("email")) or f"user:{user['id']}"


def end_sessions(ctx: Context, user_id: str, *, keep: CurrentSession | None = None) -> Step[None]:
    """End every session of ``user_id`` (:func:`.revocation.revoke`) but ``keep``, the
    browser's, which stays signed in as signed in before (a new database session keeping its
    sign-in time and provider session; a JWT re-issued with its claims). A configuration that
    cannot end them (JWT sessions without ``session.revocation``) logs a warning: the change
    stands."""
    settings = ctx.settings
    cannot = sessions_cannot_end(ctx)
    if cannot is not None:
        yield from log_warning("sessions-not-ended", cannot)
        return
    if keep is None:
        yield from revoke(ctx, user_id=user_id)
    elif settings.strategy == "database":
        yield from revoke(ctx, user_id=user_id)
        yield from create_database_session(
            ctx, user_id, sid=keep.provider_sid, signed_in_at=keep.signed_in_at
        )
    else:
        yield from revoke(ctx, user_id=user_id, keep_sid=keep.session_id)
        yield from _reissue_token(ctx)


def _reissue_token(ctx: Context) -> Step[None]:
    """This browser's JWT session with a fresh ``iat`` (its claims kept, ``sid`` and
    ``auth_time`` among them), kept by the revocation just made
    (:data:`.session_records.KEPT_AT`), its record touched."""
    spec = ctx.cookie_specs.session_token
    value, present = read_chunked(ctx.cookies, spec.name)
    if value is None:
        return
    try:
        token = yield from ctx.decode_token(value)
    except Exception as err:
        yield from log_error(err)
        return
    if not token:
        return
    claims = {k: v for k, v in token.items() if k not in ("iat", "exp", "jti")}
    claims[KEPT_AT] = revocation_time(ctx)
    encoded = yield from ctx.encode_token(claims)
    ctx.out_cookies.set_chunked(spec, encoded, ctx.now, present)
    yield from touch(ctx, claims, ctx.now + ctx.settings.session.max_age)
