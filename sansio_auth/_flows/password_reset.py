"""Forgotten passwords (not in Auth.js): ``GET|POST forgot-password`` mails a single-use link,
``GET|POST reset-password`` sets the new password with it.

Whether the address has an account or not, the answer is the same ("if an account uses this
address, a link is on its way") and an e-mail goes out: the reset link, or a note that no
account uses the address. The link's token is used up only when a valid new password is
posted: a refused password leaves it usable, a used or expired one is refused.
"""

from __future__ import annotations

from .._context import Context, Reply, add_query
from .._flow import Step, call_adapter, emit
from ..errors import Verification
from ..pages import accounts as account_pages
from .account import end_sessions
from .accounts import (
    FormError,
    answer,
    done,
    notice,
    password_provider,
    send,
    send_link,
    use_token,
)
from .address_claim import claim_address
from .limits import email_attempt
from .password import _address, check_new_password, new_hash
from .strategies import utc


def forgot_page(ctx: Context) -> Step[Reply]:
    """The form asking for the address."""
    password_provider(ctx)
    yield from ()
    return _forgot_form(ctx, "", status=200)


def _forgot_form(ctx: Context, error: str, *, status: int) -> Reply:
    page = account_pages.forgot_page(
        action_url=ctx.url("forgot-password"),
        csrf_token=ctx.csrf_token(),
        theme=ctx.settings.theme,
        error=error,
        email=str(ctx.form.get("email") or ctx.query.get("email") or ""),
    )
    return answer(ctx, page, {"error": error}, status)


def forgot(ctx: Context) -> Step[Reply]:
    """Mail a reset link (or, for an unknown address, a note saying there is no account)."""
    ctx.check_csrf()
    provider = password_provider(ctx)
    email = _address(ctx.form.get("email"))
    if email is None:
        return _forgot_form(ctx, "invalid_email", status=400)
    refused = yield from email_attempt(ctx, provider.id, email)  # mails the address either way
    if refused is not None:
        return refused
    if (yield from call_adapter(ctx.settings.adapter, "get_user_by_email", email)):
        yield from send_link(
            ctx,
            provider,
            "reset-password",
            to=email,
            identifier=f"reset-password:{email}",
            max_age=provider.reset_max_age,
            route="reset-password",
            email=email,
        )
    else:
        yield from send(ctx, provider, "no-account", to=email, url=ctx.origin)
    page = add_query(ctx.url("verify-request"), {"provider": provider.id, "type": "reset"})
    return done(ctx, page)


def reset_page(ctx: Context) -> Step[Reply]:
    """The new-password form for a reset link (its token is not used yet)."""
    token, email = ctx.query.get("token"), ctx.query.get("email")
    if not token or not email:
        raise Verification("the reset link has no token or no e-mail address")
    yield from ()
    return _reset_form(ctx, token, email, "", status=200)


def _reset_form(ctx: Context, token: str, email: str, error: str, *, status: int) -> Reply:
    provider = password_provider(ctx)
    page = account_pages.reset_page(
        action_url=ctx.url("reset-password"),
        csrf_token=ctx.csrf_token(),
        theme=ctx.settings.theme,
        token=token,
        email=email,
        error=error,
        min_length=provider.min_length,
        max_length=provider.max_length,
    )
    return answer(ctx, page, {"error": error}, status)


def reset(ctx: Context) -> Step[Reply]:
    """Set the new password with the link's token (used up), verify the address (the link
    proved it), and end every session of the user."""
    ctx.check_csrf()
    provider = password_provider(ctx)
    token, email = ctx.form.get("token"), ctx.form.get("email")
    if not isinstance(token, str) or not isinstance(email, str) or not token or not email:
        raise Verification("the reset form has no token or no e-mail address")
    try:
        password = yield from check_new_password(ctx, provider, ctx.form.get("password"))
    except FormError as err:
        return _reset_form(ctx, token, email, err.code, status=400)
    hashed = yield from new_hash(ctx, provider, password)
    if not (yield from use_token(ctx, f"reset-password:{email}", token)):
        raise Verification("the reset link is invalid, expired or used already")
    adapter = ctx.settings.adapter
    user = yield from call_adapter(adapter, "get_user_by_email", email)
    if not user:
        raise Verification("no account has this address any more")
    user_id = str(user["id"])
    yield from claim_address(ctx, user)  # the link proved it: nothing set before it stays
    yield from call_adapter(adapter, "set_password_hash", user_id, hashed)
    if not user.get("email_verified"):
        updated = yield from call_adapter(
            adapter, "update_user", {"id": user_id, "email_verified": utc(ctx.now)}
        )
        yield from emit(ctx.settings.events.update_user, "update_user", user=dict(updated))
    yield from end_sessions(ctx, user_id)
    signin = add_query(ctx.url("signin"), {"email": email})
    return notice(
        ctx,
        "Password changed",
        "Your new password is set, and every device was signed out.",
        (signin, "Sign in"),
        {"reset": True, "url": signin},
    )
