"""Forgotten passwords (not in Auth.js): ``GET|POST forgot-password`` mails a single-use link,
``GET|POST reset-password`` sets the new password with it.

Whether the address has an account or not, the answer is the same ("if an account uses this
address, a link is on its way"), an e-mail goes out (the reset link, or a note that no
account uses the address) and the store does the same work: a user looked up, a password
hash read, a token written. The link's token is used up only when a valid new password is
posted: a refused password leaves it usable, a used or expired one is refused.

A token's identifier carries a fingerprint of the password hash it was made under
(:func:`reset_identifier`, as Django binds its reset tokens to the password), so a new
password, by a reset or otherwise, voids every reset link sent before it.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from .._context import Context, Reply, add_query
from .._flow import Step, call_adapter, emit, log_error
from ..errors import EmailSignInError, Verification
from ..http import Page
from ..providers import PasswordProvider
from .account import end_sessions
from .accounts import (
    FormError,
    answer,
    done,
    link,
    new_token,
    notice,
    password_provider,
    secret,
    send,
    use_token,
)
from .address_claim import claim_address
from .limits import email_attempt, remember_device
from .password import _address, check_new_password, new_hash
from .strategies import utc

MAIL_FAILED = "EmailSignin"
"""The form's ``error`` when the e-mail could not be sent (Auth.js's key for an unsent
e-mail); answered ``503``: the sender's outage is temporary, the request can be made again."""


def forgot_page(ctx: Context) -> Step[Reply]:
    """The form asking for the address."""
    password_provider(ctx)
    yield from ()
    return _forgot_form(ctx, "", status=200)


def _forgot_form(ctx: Context, error: str, *, status: int) -> Reply:
    context = {
        "action_url": ctx.url("forgot-password"),
        "csrf_token": ctx.csrf_token(),
        "error": error or None,
        "email": str(ctx.form.get("email") or ctx.query.get("email") or ""),
    }
    return answer(ctx, Page("forgot-password", context), {"error": error}, status)


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
    user, identifier = yield from _reset_state(ctx, email)
    try:
        yield from _mail_reset(ctx, provider, email, identifier, known=user is not None)
    except EmailSignInError as err:
        yield from log_error(err)
        return _forgot_form(ctx, MAIL_FAILED, status=503)
    page = add_query(ctx.url("verify-request"), {"provider": provider.id, "type": "reset"})
    return done(ctx, page)


def _reset_state(ctx: Context, email: str) -> Step[tuple[dict[str, Any] | None, str]]:
    """The user with ``email`` (``None``: none), and the identifier of its reset tokens
    (bound to its password hash). An unknown address reads the hash of a user id nobody
    has: the same calls, in the same order, as a known one."""
    adapter = ctx.settings.adapter
    found = yield from call_adapter(adapter, "get_user_by_email", email)
    user = dict(found) if found else None
    user_id = str(user["id"]) if user is not None else ctx.random_uuid()
    stored = yield from call_adapter(adapter, "get_password_hash", user_id)
    return user, reset_identifier(ctx, email, stored if user is not None else None)


def reset_identifier(ctx: Context, email: str, password_hash: str | None) -> str:
    """The identifier of ``email``'s reset tokens while its password hash is
    ``password_hash`` (``None``: no password): a keyed fingerprint of the hash, so a token
    made before the password changed matches no identifier any more."""
    state = hmac.new(secret(ctx).encode(), (password_hash or "").encode(), hashlib.sha256)
    return f"reset-password:{email}:{state.hexdigest()[:16]}"


def _mail_reset(
    ctx: Context, provider: PasswordProvider, email: str, identifier: str, *, known: bool
) -> Step[None]:
    """Write a token of ``identifier`` and mail ``email`` the reset link carrying it, or, for
    an unknown address, the note that no account uses it (that token is sent to nobody: it
    only makes the work the same). A failed e-mail takes its token back and is raised as
    :class:`EmailSignInError`."""
    token, expires = yield from new_token(ctx, identifier, provider.reset_max_age)
    try:
        if known:
            url = link(ctx, "reset-password", token=token, email=email)
            yield from send(
                ctx, provider, "reset-password", to=email, url=url, expires=expires, token=token
            )
        else:
            yield from send(ctx, provider, "no-account", to=email, url=ctx.origin)
    except Exception as err:
        try:
            yield from use_token(ctx, identifier, token)
        except Exception as undo:
            yield from log_error(undo)
        if isinstance(err, EmailSignInError):
            raise
        raise EmailSignInError(
            f"the {'reset' if known else 'no-account'} e-mail failed: {err!r}"
        ) from err


def reset_page(ctx: Context) -> Step[Reply]:
    """The new-password form for a reset link (its token is not used yet)."""
    token, email = ctx.query.get("token"), ctx.query.get("email")
    if not token or not email:
        raise Verification("the reset link has no token or no e-mail address")
    yield from ()
    return _reset_form(ctx, token, email, "", status=200)


def _reset_form(ctx: Context, token: str, email: str, error: str, *, status: int) -> Reply:
    provider = password_provider(ctx)
    context = {
        "action_url": ctx.url("reset-password"),
        "csrf_token": ctx.csrf_token(),
        "token": token,
        "email": email,
        "error": error or None,
        "min_length": provider.min_length,
        "max_length": provider.max_length,
    }
    return answer(ctx, Page("reset-password", context), {"error": error}, status)


def reset(ctx: Context) -> Step[Reply]:
    """Set the new password with the link's token (used up: the new password voids the
    address's other links), verify the address (the link proved it), end every session of
    the user, and make the browser a known device of the address (its sign-in then passes
    the address's rate limit, which others may have used up)."""
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
    adapter = ctx.settings.adapter
    user, identifier = yield from _reset_state(ctx, email)
    if not (yield from use_token(ctx, identifier, token)) or user is None:
        raise Verification("the reset link is invalid, expired, used already or made void")
    user_id = str(user["id"])
    yield from claim_address(ctx, user)  # the link proved it: nothing set before it stays
    yield from call_adapter(adapter, "set_password_hash", user_id, hashed)
    if not user.get("email_verified"):
        updated = yield from call_adapter(
            adapter, "update_user", {"id": user_id, "email_verified": utc(ctx.now)}
        )
        yield from emit(ctx.settings.events.update_user, "update_user", user=dict(updated))
    yield from end_sessions(ctx, user_id)
    remember_device(ctx, [email])  # the link proved the mailbox: sign in past the address's limit
    signin = add_query(ctx.url("signin"), {"email": email})
    return notice(ctx, "password-reset", signin, {"reset": True, "url": signin})
