"""Second factors, checked and set up (not in Auth.js): what the challenge (:mod:`.two_factor`)
and the management page (:mod:`.two_factor_setup`) share.

Setting up an authenticator app writes nothing until it is confirmed: the new secret waits
in an encrypted cookie (``two_factor_setup``, 15 minutes) while its QR code is shown, and
the first right code stores it, sealed, with fresh recovery codes (hashed). The cookie names
the user and the session (or the waiting sign-in) it was made for, and only that session can
confirm it: a set-up cookie copied into another session is a new set-up.

Wrong codes are counted (:func:`count_failure`): past ``two_factor.max_failures`` in a row
the authenticator app and e-mailed codes are locked (:func:`sansio_auth.two_factor.is_locked`)
until the user signs in another way (a recovery code, a passkey) and sets the app up again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from .. import jwt, totp
from .._context import Context, Reply
from .._flow import Step, call_adapter, log_error, log_warning
from ..cookies import CHECK_MAX_AGE
from ..http import Page
from ..ratelimit import counter_key
from ..two_factor import (
    LOCKED_STEP,
    clean_recovery_code,
    code_hashes,
    failure_series,
    is_locked,
    new_recovery_codes,
    open_secret,
    seal_secret,
    setup_payload,
    setup_secret,
    stored_codes,
)
from .accounts import answer, security_url, use_token
from .strategies import utc

LOCKABLE = frozenset({"totp", "email"})
"""The methods :func:`count_failure` locks (recovery codes are too long to guess; a passkey
is not a code)."""
FAILURE_WINDOW = 365 * 24 * 60 * 60
"""How long a series of wrong codes is remembered (a right code starts a new series)."""


def verify_factor(
    ctx: Context,
    user_id: str,
    record: Mapping[str, Any],
    method: str,
    code: Any,
    *,
    email_identifier: str | None = None,
) -> Step[bool]:
    """Whether ``code`` is a right answer of ``method`` (``totp``, ``recovery``, ``email``:
    the code stored under ``email_identifier``) for ``user_id``, using it up (a TOTP step, a
    recovery code, an e-mailed code) if so. A locked app refuses its codes."""
    adapter = ctx.settings.adapter
    if method in LOCKABLE and is_locked(record):
        return False
    if method == "totp":
        try:
            key = totp.secret_key(open_secret(str(record["totp_secret"]), ctx.settings.secrets))
        except ValueError:
            return False
        step = totp.accepted_step(key, code, ctx.now, last_step=record.get("totp_last_step"))
        if step is None:
            return False
        return bool((yield from call_adapter(adapter, "use_totp_step", user_id, step)))
    if method == "recovery":
        clean = clean_recovery_code(code)
        if clean is None:
            return False
        for hashed in code_hashes(clean, ctx.settings.secrets):
            if (yield from call_adapter(adapter, "use_recovery_code", user_id, hashed)):
                return True
        return False
    if method == "email" and email_identifier is not None:
        clean_code = totp.clean_code(code)
        return clean_code is not None and (yield from use_token(ctx, email_identifier, clean_code))
    return False


def count_failure(ctx: Context, user_id: str, record: Mapping[str, Any]) -> Step[bool]:
    """A wrong code for ``user_id`` (whose second factor is ``record``): count it, and lock
    their authenticator app once ``two_factor.max_failures`` wrong codes came in a row
    (logged ``two-factor-locked``); whether the app is locked. The count lives in the rate
    limits' store; a store that fails is logged and counts nothing."""
    if is_locked(record):
        return True
    options, limits = ctx.settings.two_factor, ctx.settings.rate_limits
    most = options.max_failures if options is not None else None
    if most is None or limits.store is None:
        return False
    key = counter_key(limits, "two_factor_failures", failure_series(user_id, record))
    try:
        answered = yield from call_adapter(
            limits.store, "increment_counter", key, FAILURE_WINDOW, utc(ctx.now)
        )
        count = answered[0]
    except Exception as err:
        yield from log_error(err)
        return False
    if not isinstance(count, int) or count < most:
        return False
    yield from call_adapter(ctx.settings.adapter, "use_totp_step", user_id, LOCKED_STEP)
    yield from log_warning(
        "two-factor-locked",
        f"{count} wrong second-factor codes in a row: the authenticator app is locked",
    )
    return True


def enrol_form(
    ctx: Context,
    account: str,
    error: str,
    *,
    user_id: str,
    bound_to: str,
    action_url: str,
    required: bool = False,
    ask_current: bool = False,
    status: int = 200,
    **hidden: str,
) -> Reply:
    """The set-up page for ``user_id`` in the session (or waiting sign-in) ``bound_to``: a QR
    code of the secret waiting in the set-up cookie (a new one when none is waiting for them,
    so a wrong code shows the same QR code again); ``ask_current``: a code of the factor it
    replaces is asked too."""
    secret = _waiting_secret(ctx, user_id, bound_to)
    if secret is None:
        secret = totp.new_secret(ctx.entropy(totp.SECRET_BYTES))
        spec = ctx.cookie_specs.two_factor_setup
        value = ctx.seal(spec, setup_payload(secret, user_id, bound_to), CHECK_MAX_AGE)
        ctx.out_cookies.set(spec.make(value, ctx.now))
    options = ctx.settings.two_factor
    issuer = (options.issuer if options else None) or urlsplit(ctx.origin).hostname or "sansio-auth"
    uri = totp.provisioning_uri(secret, account=account, issuer=issuer)
    context = {
        "action_url": action_url,
        "csrf_token": ctx.csrf_token(),
        "uri": uri,
        "secret": secret,
        "error": error or None,
        "required": required,
        "ask_current": ask_current,
        "fields": hidden,
        "security_url": None if required else security_url(ctx),
    }
    body = {"error": error} if error else {"uri": uri, "secret": secret}
    return answer(ctx, Page("two-factor-setup", context), body, status)


def _waiting_secret(ctx: Context, user_id: str, bound_to: str) -> str | None:
    spec = ctx.cookie_specs.two_factor_setup
    value = ctx.cookies.get(spec.name)
    if not value:
        return None
    try:
        claims = ctx.unseal(spec, value)
    except jwt.InvalidToken:
        return None
    return setup_secret(claims, user_id, bound_to)


def enable(ctx: Context, user_id: str, bound_to: str) -> Step[list[str] | None]:
    """Confirm the secret waiting for ``user_id`` in ``bound_to`` with the posted ``code``
    and store the second factor (replacing any); the new recovery codes (to show once), or
    ``None`` when the code is wrong or no secret waits for them."""
    secret = _waiting_secret(ctx, user_id, bound_to)
    if secret is None:
        return None
    key = totp.secret_key(secret)
    step = totp.accepted_step(key, ctx.form.get("code"), ctx.now, last_step=None)
    if step is None:
        return None
    codes = new_recovery_codes(ctx.entropy)
    secrets = ctx.settings.secrets
    record = {
        "user_id": user_id,
        "totp_secret": seal_secret(secret, secrets, ctx.entropy(12)),
        "totp_last_step": step,
        "recovery_codes": stored_codes(codes, secrets[0]),
        "enabled_at": utc(int(ctx.now)),
    }
    yield from call_adapter(ctx.settings.adapter, "set_two_factor", record)
    ctx.out_cookies.delete(ctx.cookie_specs.two_factor_setup)
    return codes


def new_codes(ctx: Context, user_id: str) -> Step[list[str] | None]:
    """Replace the user's recovery codes; the new ones, or ``None`` without a second factor."""
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", user_id)
    if not record:
        return None
    codes = new_recovery_codes(ctx.entropy)
    updated = {**record, "recovery_codes": stored_codes(codes, ctx.settings.secrets[0])}
    yield from call_adapter(ctx.settings.adapter, "set_two_factor", updated)
    return codes


def new_codes_page(ctx: Context, codes: list[str], continue_url: str) -> Reply:
    """The recovery codes, shown once, and the way on."""
    page = Page("recovery-codes", {"codes": codes, "continue_url": continue_url})
    return answer(ctx, page, {"recovery_codes": codes, "url": continue_url})
