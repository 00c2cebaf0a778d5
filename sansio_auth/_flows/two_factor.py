"""``GET|POST two-factor``: the second factor of a waiting sign-in.

The browser holds the pending cookie (:mod:`.second_factor`). ``GET`` shows the challenge —
or, when the app requires two-factor and the user has none, the set-up — and with
``?passkey=options`` answers the passkey options. ``POST`` checks what was given
(``method``: ``totp``, ``recovery``, ``email``, ``passkey``, ``send-email``, or ``enrol``
for the set-up) and only then issues the session. A wrong code shows the challenge again
(the sign-in keeps waiting until it expires); nothing is written but what a right answer
uses up (the TOTP step, the recovery code, the e-mailed code, the passkey's counter), and the
count of wrong codes (:func:`.factors.count_failure`). An e-mailed code belongs to the waiting
sign-in it was sent for, and only the last one sent is valid.
"""

from __future__ import annotations

import msgspec

from .. import _webauthn as ceremony
from .._context import Context, Reply, json_reply
from .._flow import Step, call_adapter
from ..errors import TwoFactorExpired, WebAuthnVerificationError
from ..http import Page
from ..oauth.checks import b64url
from ..two_factor import Pending, enrolled_at, is_locked
from .accounts import answer, new_code, password_provider, send
from .factors import LOCKABLE, count_failure, enable, enrol_form, new_codes_page, verify_factor
from .limits import code_attempt, email_attempt
from .login import complete_login
from .second_factor import clear_pending, pending_of, set_pending, trust_device
from .strategies import LoginResult
from .webauthn import _credential_id, _response_data, webauthn_provider

METHODS = ("totp", "recovery", "email", "passkey", "send-email", "enrol")


def challenge_page(ctx: Context) -> Step[Reply]:
    """The challenge (or the forced set-up) of the waiting sign-in."""
    pending = pending_of(ctx)
    if pending.enrol:
        return _forced_setup(ctx, pending, "", status=200)
    if ctx.query.get("passkey") == "options":
        return (yield from _passkey_options(ctx, pending))
    return (yield from _challenge(ctx, pending, "", status=200))


def _challenge(ctx: Context, pending: Pending, error: str, *, status: int) -> Step[Reply]:
    methods = yield from available(ctx, pending.user_id)
    options = ctx.settings.two_factor
    assert options is not None
    context = {
        "action_url": ctx.url("two-factor"),
        "csrf_token": ctx.csrf_token(),
        "methods": sorted(methods),
        "error": error or None,
        "trust_device_days": options.trust_device_days,
        "passkey_options_url": f"{ctx.url('two-factor')}?passkey=options",
    }
    body = {"error": error} if error else {"methods": sorted(methods)}
    return answer(ctx, Page("two-factor", context), body, status)


def available(ctx: Context, user_id: str) -> Step[set[str]]:
    """The methods ``user_id`` can answer with."""
    adapter = ctx.settings.adapter
    record = yield from call_adapter(adapter, "get_two_factor", user_id)
    methods = set()
    locked = is_locked(record)
    if record and not locked:
        methods.add("totp")
    if record and record.get("recovery_codes"):
        methods.add("recovery")
    if webauthn_provider(ctx) is not None:
        found = yield from call_adapter(adapter, "list_authenticators_by_user_id", user_id)
        if found:
            methods.add("passkey")
    options = ctx.settings.two_factor
    if options is not None and options.email_code and record and not locked:
        methods.add("email")
    return methods


def answer_challenge(ctx: Context) -> Step[Reply]:
    """Check the second factor; issue the session when it is right."""
    ctx.check_csrf()
    pending = pending_of(ctx)
    method = ctx.form.get("method")
    if pending.enrol:
        return (yield from _enrol(ctx, pending))
    if method == "send-email":
        return (yield from _send_code(ctx, pending))
    if method in ("totp", "recovery", "email"):
        refused = yield from code_attempt(ctx, pending.account.get("provider"), pending.user_id)
        if refused is not None:
            return refused
    if method == "passkey":
        good = yield from _passkey(ctx, pending)
    elif method in ("totp", "recovery", "email"):
        record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", pending.user_id)
        if not record:
            return (yield from _challenge(ctx, pending, "invalid_code", status=400))
        field = {"totp": "code", "recovery": "recovery_code", "email": "email_code"}[str(method)]
        good = yield from verify_factor(
            ctx,
            pending.user_id,
            record,
            str(method),
            ctx.form.get(field),
            email_identifier=email_identifier(pending),
        )
        if not good:
            locked = yield from count_failure(ctx, pending.user_id, record)
            error = "locked" if locked and method in LOCKABLE else "invalid_code"
            return (yield from _challenge(ctx, pending, error, status=400))
    else:
        good = False
    if not good:
        error = "passkey_failed" if method == "passkey" else "invalid_code"
        return (yield from _challenge(ctx, pending, error, status=400))
    return (yield from _complete(ctx, pending))


def email_identifier(pending: Pending) -> str | None:
    """Where the last code e-mailed for ``pending`` is stored (``None``: none was sent)."""
    if not pending.email_codes:
        return None
    return f"two-factor:{pending.user_id}:{pending.id}:{pending.email_codes}"


def _complete(ctx: Context, pending: Pending, codes: list[str] | None = None) -> Step[Reply]:
    """Issue the session of the waiting sign-in (and trust this device, if asked)."""
    user = yield from call_adapter(ctx.settings.adapter, "get_user", pending.user_id)
    if not user:
        raise TwoFactorExpired("the user of the waiting sign-in is gone")
    clear_pending(ctx)
    if ctx.form.get("trust_device"):
        record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", pending.user_id)
        since = enrolled_at(record)
        if since is not None:
            trust_device(ctx, pending.user_id, since)
    login = LoginResult(
        user=dict(user),
        account=pending.account,
        is_new_user=pending.is_new_user,
        kept_at=pending.kept_at,
    )
    reply = yield from complete_login(ctx, login, profile=pending.profile)
    if codes is None or reply.redirect is None:
        return reply
    return new_codes_page(ctx, codes, reply.redirect)


def _enrol(ctx: Context, pending: Pending) -> Step[Reply]:
    """The forced set-up: confirm the app with a code, then sign in (showing the codes)."""
    codes = yield from enable(ctx, pending.user_id, _setup_binding(pending))
    if codes is None:
        return _forced_setup(ctx, pending, "invalid_code", status=400)
    return (yield from _complete(ctx, pending, codes))


def _send_code(ctx: Context, pending: Pending) -> Step[Reply]:
    options = ctx.settings.two_factor
    assert options is not None
    user = yield from call_adapter(ctx.settings.adapter, "get_user", pending.user_id)
    email = user.get("email") if user else None
    if not options.email_code or not isinstance(email, str):
        return (yield from _challenge(ctx, pending, "invalid_code", status=400))
    provider = password_provider(ctx)
    refused = yield from email_attempt(ctx, provider.id, email)
    if refused is not None:
        return refused
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", pending.user_id)
    if is_locked(record):
        return (yield from _challenge(ctx, pending, "locked", status=400))
    pending = msgspec.structs.replace(pending, email_codes=pending.email_codes + 1)
    identifier = email_identifier(pending)
    assert identifier is not None
    code, expires = yield from new_code(ctx, identifier, options.email_code_max_age)
    set_pending(ctx, pending)  # the codes sent before no longer count
    yield from send(
        ctx,
        provider,
        "two-factor-code",
        to=email,
        url=ctx.url("two-factor"),
        expires=expires,
        code=code,
    )
    return (yield from _challenge(ctx, pending, "code_sent", status=200))


def _forced_setup(ctx: Context, pending: Pending, error: str, *, status: int) -> Reply:
    """The set-up page of a sign-in that waits for the user to set up a second factor."""
    account = pending.label or pending.user_id
    return enrol_form(
        ctx,
        account,
        error,
        user_id=pending.user_id,
        bound_to=_setup_binding(pending),
        action_url=ctx.url("two-factor"),
        required=True,
        method="enrol",
        status=status,
    )


def _setup_binding(pending: Pending) -> str:
    """What the forced set-up of ``pending`` is bound to: the waiting sign-in."""
    return f"waiting:{pending.id}"


# -- a passkey as second factor ----------------------------------------------------------------


def _passkey_options(ctx: Context, pending: Pending) -> Step[Reply]:
    """Authentication options allowing only the waiting user's passkeys; the challenge cookie."""
    provider = webauthn_provider(ctx)
    if provider is None:
        return json_reply({"error": "Invalid request"}, status=400)
    found = yield from call_adapter(
        ctx.settings.adapter, "list_authenticators_by_user_id", pending.user_id
    )
    rp = ceremony.relying_party(provider, ctx.origin)
    challenge = b64url(ctx.entropy(32))
    options = ceremony.authentication_options(
        provider, rp, challenge=challenge, allow=[dict(a) for a in found or []]
    )
    ctx.out_cookies.set(
        ceremony.challenge_cookie(
            ctx.cookie_specs.webauthn_challenge,
            {"challenge": challenge},
            provider_id=provider.id,
            secrets=ctx.settings.secrets,
            now=ctx.now,
            entropy=ctx.entropy,
        )
    )
    return json_reply({"action": "authenticate", "options": options})


def _passkey(ctx: Context, pending: Pending) -> Step[bool]:
    """Whether the posted passkey response is the waiting user's, verified."""
    provider = webauthn_provider(ctx)
    if provider is None:
        return False
    spec = ctx.cookie_specs.webauthn_challenge
    if spec.name in ctx.cookies:
        ctx.out_cookies.set(spec.delete())  # used up, whatever happens next
    try:
        payload = ceremony.read_challenge(
            ctx.cookies, spec, provider_id=provider.id, secrets=ctx.settings.secrets, now=ctx.now
        )
        response = _response_data(ctx.form.get("data"))
        credential_id = _credential_id(response)
    except Exception:
        return False
    adapter = ctx.settings.adapter
    authenticator = yield from call_adapter(adapter, "get_authenticator", credential_id)
    if not authenticator or str(authenticator.get("user_id")) != pending.user_id:
        return False
    rp = ceremony.relying_party(provider, ctx.origin)
    try:
        counter = ceremony.verify_authentication(
            provider, rp, response, payload["challenge"], authenticator
        )
    except WebAuthnVerificationError:
        return False
    stored_id = str(authenticator["credential_id"])
    yield from call_adapter(adapter, "update_authenticator_counter", stored_id, counter)
    return True
