"""``GET|POST two-factor-setup``: a signed-in user's second factor.

Without one: the set-up page (QR code), confirmed by a first code (``action=enable``), which
shows the recovery codes once. With one: new recovery codes (``action=regenerate``), turning
it off (``action=disable``), or replacing the authenticator app (``GET ?action=replace``,
then ``action=enable``). Every change but new recovery codes adds or removes a way in, so it
is a sensitive operation (:mod:`.freshness`: a session signed in within
``session.fresh_age``); each change of an existing factor also needs a fresh code of it (a
code of the app, or a recovery code).
"""

from __future__ import annotations

from typing import Any

from .._context import Context, Reply, add_query
from .._flow import Step, call_adapter
from ..errors import SessionNotFresh
from ..http import Page
from .accounts import answer, notice, security_url, sign_in_first, signed_in
from .factors import count_failure, enable, enrol_form, new_codes, new_codes_page, verify_factor
from .freshness import check_fresh
from .limits import code_attempt
from .session_list import CurrentSession

ENABLE = "enable-two-factor"
DISABLE = "disable-two-factor"


def setup_page(ctx: Context) -> Step[Reply]:
    """The set-up page (a fresh sign-in first), the replacement's (``?action=replace``), or
    the management page when two-factor is on."""
    current = yield from signed_in(ctx)
    if isinstance(current, Reply):
        return current
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", current.user_id)
    replacing = bool(record) and ctx.query.get("action") == "replace"
    if record and not replacing:
        return _manage_page(ctx, record, "", status=200)
    try:
        check_fresh(current.signed_in_at, ctx.now, ctx.settings.session.fresh_age)
    except SessionNotFresh as err:  # sign in again, then back here
        back = add_query(ctx.url("two-factor-setup"), {"action": "replace"} if replacing else {})
        return sign_in_first(ctx, err.type, back)
    return _enrol_page(ctx, current, "", replacing=replacing, status=200)


def _enrol_page(
    ctx: Context, current: CurrentSession, error: str, *, replacing: bool, status: int
) -> Reply:
    user = current.user
    return enrol_form(
        ctx,
        str(user.get("email") or user["id"]),
        error,
        user_id=current.user_id,
        bound_to=bound_to(current),
        action_url=ctx.url("two-factor-setup"),
        ask_current=replacing,
        status=status,
        action="enable",
    )


def _manage_page(ctx: Context, record: Any, error: str, *, status: int) -> Reply:
    codes_left = len(record.get("recovery_codes") or [])
    context = {
        "action_url": ctx.url("two-factor-setup"),
        "replace_url": f"{ctx.url('two-factor-setup')}?action=replace",
        "csrf_token": ctx.csrf_token(),
        "codes_left": codes_left,
        "error": error or None,
        "security_url": security_url(ctx),
    }
    body = {"error": error} if error else {"enabled": True, "recovery_codes_left": codes_left}
    return answer(ctx, Page("two-factor-manage", context), body, status)


def bound_to(current: CurrentSession) -> str:
    """What a set-up made in ``current`` is bound to: its public id, else (a JWT session
    without ``sid``) its sign-in time."""
    return current.session_id or f"signed-in:{current.signed_in_at}"


def setup(ctx: Context) -> Step[Reply]:
    """Turn two-factor on (or replace the app), make new recovery codes, or turn it off."""
    ctx.check_csrf()
    action = ctx.form.get("action")
    if action not in ("enable", "regenerate", "disable"):
        action = None
    operation = {"enable": ENABLE, "disable": DISABLE}.get(str(action))
    current = yield from signed_in(ctx, operation)
    if isinstance(current, Reply):
        return current
    user_id = current.user_id
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", user_id)
    if action is None or (action != "enable" and not record):
        return _error(ctx, current, record, "invalid_code")
    if record:  # a change of the factor: a fresh code of it first
        field = "current_code" if action == "enable" else "code"
        refused = yield from code_attempt(ctx, None, user_id)
        if refused is not None:
            return refused
        if not (yield from fresh_second_factor(ctx, user_id, ctx.form.get(field))):
            return _error(ctx, current, record, "invalid_code")
    here = ctx.url("two-factor-setup")
    if action == "enable":
        codes = yield from enable(ctx, user_id, bound_to(current))
        if codes is None:
            return _error(ctx, current, record, "invalid_code")
        return new_codes_page(ctx, codes, here)
    if action == "regenerate":
        codes = yield from new_codes(ctx, user_id)
        if codes is None:
            return _error(ctx, current, record, "invalid_code")
        return new_codes_page(ctx, codes, here)
    yield from call_adapter(ctx.settings.adapter, "delete_two_factor", user_id)
    ctx.out_cookies.delete(ctx.cookie_specs.trusted_device)
    return notice(ctx, "two-factor-off", here, {"enabled": False})


def _error(ctx: Context, current: CurrentSession, record: Any, error: str) -> Reply:
    """The page the post came from again, with ``error``: the set-up (or the replacement's)
    when an app was being set up, else the management page."""
    if ctx.form.get("action") == "enable":
        return _enrol_page(ctx, current, error, replacing=bool(record), status=400)
    if record:
        return _manage_page(ctx, record, error, status=400)
    return _enrol_page(ctx, current, error, replacing=False, status=400)


def fresh_second_factor(ctx: Context, user_id: str, code: Any) -> Step[bool]:
    """Whether ``code`` is a right code of the user's app or one of their recovery codes (a
    wrong one is counted, :func:`.factors.count_failure`)."""
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", user_id)
    if not record:
        return False
    for method in ("totp", "recovery"):
        if (yield from verify_factor(ctx, user_id, record, method, code)):
            return True
    yield from count_failure(ctx, user_id, record)
    return False
