"""The password provider's sign-in (``POST callback/password``), sign-up (``GET|POST signup``)
and address verification (``GET verify-email``) (not in Auth.js).

No answer tells whether an address has an account: a sign-in with an unknown address checks
the password against a hash all the same (same work, same time) and fails as a wrong
password does; a sign-up with a taken address answers as any sign-up ("check your email")
and mails the address's owner a note instead of a link.
"""

from __future__ import annotations

from typing import Any

from .._context import Context, Reply, add_query
from .._flow import Step, call_adapter, emit, hash_password, invoke, log_error, verify_password
from ..errors import AdapterError, CredentialsSignin, Verification
from ..http import Page
from ..passwords import problem, too_long
from ..providers import PasswordProvider
from ..providers.email import normalize_email
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
from .limits import email_attempt, password_attempt
from .login import finish_login, run_sign_in_callback, undo_sign_up
from .strategies import LoginResult, utc

ACCOUNT_TYPE = "password"


def password_callback(ctx: Context, provider: PasswordProvider) -> Step[Reply]:
    """Check the posted ``email`` and ``password``; sign in (or ask for the second factor)."""
    ctx.check_csrf()
    email = _address(ctx.form.get("email"))
    refused = yield from password_attempt(ctx, provider.id, email)
    if refused is not None:
        return refused
    password = ctx.form.get("password")
    if not isinstance(password, str) or too_long(password, provider.max_length):
        raise CredentialsSignin("no password, or one over the length limit", code="credentials")
    adapter = ctx.settings.adapter
    user = None
    if email is not None:
        found = yield from call_adapter(adapter, "get_user_by_email", email)
        user = dict(found) if found else None
    stored = None
    if user is not None:
        stored = yield from call_adapter(adapter, "get_password_hash", str(user["id"]))
    checked = yield from verify_password(
        password, stored, provider.argon2, ctx.settings.password_hasher
    )
    if not checked.valid or user is None or email is None:
        raise CredentialsSignin("wrong e-mail address or password", code="credentials")
    if checked.needs_rehash:
        yield from _rehash(ctx, provider, str(user["id"]), password)
    if provider.require_verified_email and not user.get("email_verified"):
        yield from send_verification(ctx, provider, email)
        return done(ctx, _verify_request(ctx, "verify-email"))
    account = password_account(provider, user)
    redirect = yield from run_sign_in_callback(
        ctx, user=user, account=account, profile=None, credentials={"email": email}, email=None
    )
    if redirect is not None:
        return Reply(redirect=redirect)
    return (yield from finish_login(ctx, LoginResult(user=user, account=account)))


def password_account(provider: PasswordProvider, user: dict[str, Any]) -> dict[str, Any]:
    """The account a password sign-in is made with (not stored: the hash is the user's)."""
    user_id = str(user["id"])
    return {
        "provider": provider.id,
        "type": ACCOUNT_TYPE,
        "provider_account_id": user_id,
        "user_id": user_id,
    }


def _rehash(ctx: Context, provider: PasswordProvider, user_id: str, password: str) -> Step[None]:
    """Replace an outdated hash (other parameters, another format) with a current one; a
    failure is logged, never fatal: the sign-in goes on and the next one tries again."""
    try:
        fresh = yield from new_hash(ctx, provider, password)
        yield from call_adapter(ctx.settings.adapter, "set_password_hash", user_id, fresh)
    except Exception as err:
        yield from log_error(err)


def new_hash(ctx: Context, provider: PasswordProvider, password: str) -> Step[str]:
    """The hash of a new ``password`` (a fresh salt from the engine's entropy)."""
    salt = ctx.entropy(provider.argon2.salt_len)
    return (yield from hash_password(password, salt, provider.argon2, ctx.settings.password_hasher))


def check_new_password(ctx: Context, provider: PasswordProvider, password: Any) -> Step[str]:
    """``password`` if it may be a new password (long enough, not too long, not a common one,
    not breached); :class:`FormError` naming why not."""
    refused = problem(
        password,
        min_length=provider.min_length,
        max_length=provider.max_length,
        common=provider.common,
    )
    if refused is not None:
        raise FormError(refused)
    assert isinstance(password, str)
    if provider.breached is not None:
        breached = yield from invoke("breached", provider.breached, password=password)
        if breached:
            raise FormError("breached")
    return password


def send_verification(ctx: Context, provider: PasswordProvider, email: str) -> Step[None]:
    """Mail ``email`` a link that verifies it."""
    yield from send_link(
        ctx,
        provider,
        "verify-email",
        to=email,
        identifier=f"verify-email:{email}",
        max_age=provider.verify_max_age,
        route="verify-email",
        email=email,
    )


def _verify_request(ctx: Context, kind: str) -> str:
    return add_query(ctx.url("verify-request"), {"provider": "password", "type": kind})


def _address(value: Any) -> str | None:
    try:
        return normalize_email(value)
    except ValueError:
        return None


# -- sign-up -----------------------------------------------------------------------------------


def signup_page(ctx: Context) -> Step[Reply]:
    """The sign-up form."""
    provider = password_provider(ctx)
    yield from ctx.callback_url()
    return _signup_form(ctx, provider, "", status=200)


def _signup_form(ctx: Context, provider: PasswordProvider, error: str, *, status: int) -> Reply:
    form = ctx.form
    context = {
        "action_url": ctx.url("signup"),
        "signin_url": ctx.url("signin"),
        "csrf_token": ctx.csrf_token(),
        "error": error or None,
        "email": str(form.get("email") or ""),
        "name": str(form.get("name") or ""),
        "min_length": provider.min_length,
        "max_length": provider.max_length,
    }
    return answer(ctx, Page("signup", context), {"error": error}, status)


def sign_up(ctx: Context) -> Step[Reply]:
    """Create an account (unverified) and mail the verification link."""
    ctx.check_csrf()
    provider = password_provider(ctx)
    yield from ctx.callback_url()
    try:
        if not provider.sign_up:
            raise FormError("sign_up_closed")
        password = yield from check_new_password(ctx, provider, ctx.form.get("password"))
        email = _address(ctx.form.get("email"))
        if email is None:
            raise FormError("invalid_email")
    except FormError as err:
        status = 403 if err.code == "sign_up_closed" else 400
        return _signup_form(ctx, provider, err.code, status=status)
    refused = yield from email_attempt(ctx, provider.id, email)  # mails the address either way
    if refused is not None:
        return refused
    hashed = yield from new_hash(ctx, provider, password)  # taken address or not: same work
    adapter = ctx.settings.adapter
    if (yield from call_adapter(adapter, "get_user_by_email", email)):
        yield from send(ctx, provider, "account-exists", to=email, url=ctx.url("signin"))
        return done(ctx, _verify_request(ctx, "verify-email"))
    name = ctx.form.get("name")
    user = {
        "id": ctx.random_uuid(),
        "email": email,
        "email_verified": None,
        "name": (name.strip()[:200] or None) if isinstance(name, str) else None,
    }
    created = dict((yield from call_adapter(adapter, "create_user", user)))
    try:  # all or nothing: a user whose password or link could not be stored or sent goes
        yield from call_adapter(adapter, "set_password_hash", str(created["id"]), hashed)
        if provider.require_verified_email:
            yield from send_verification(ctx, provider, email)
    except Exception:
        yield from undo_sign_up(ctx, str(created["id"]))
        raise
    yield from emit(ctx.settings.events.create_user, "create_user", user=created)
    if provider.require_verified_email:
        return done(ctx, _verify_request(ctx, "verify-email"))
    login = LoginResult(user=created, account=password_account(provider, created), is_new_user=True)
    return (yield from finish_login(ctx, login))


# -- address verification ---------------------------------------------------------------------


def verify_email(ctx: Context) -> Step[Reply]:
    """Follow a verification link: the address (or the new address) is verified, once."""
    token, email, user_id = ctx.query.get("token"), ctx.query.get("email"), ctx.query.get("user")
    if not token or not email:
        raise Verification("the link has no token or no e-mail address")
    adapter = ctx.settings.adapter
    verified = utc(ctx.now)
    if user_id:  # a change of address
        if not (yield from use_token(ctx, f"change-email:{user_id}:{email}", token)):
            raise Verification("the address change link is invalid, expired or used already")
        try:
            updated = yield from call_adapter(
                adapter, "update_user", {"id": user_id, "email": email, "email_verified": verified}
            )
        except AdapterError as err:
            raise Verification(
                "the new address has been taken meanwhile", cause={"err": err}
            ) from err
        kind = "email-changed"
    else:
        if not (yield from use_token(ctx, f"verify-email:{email}", token)):
            raise Verification("the verification link is invalid, expired or used already")
        found = yield from call_adapter(adapter, "get_user_by_email", email)
        if not found:
            raise Verification("no account has this address any more")
        updated = yield from call_adapter(
            adapter, "update_user", {"id": found["id"], "email_verified": verified}
        )
        kind = "email-verified"
    yield from emit(ctx.settings.events.update_user, "update_user", user=dict(updated))
    signin = add_query(ctx.url("signin"), {"email": email})
    return notice(ctx, kind, signin, {"verified": True, "email": email})
