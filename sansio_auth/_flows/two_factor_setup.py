"""``GET|POST two-factor-setup``: a signed-in user's second factor (not in Auth.js).

Without one: the set-up page (QR code), confirmed by a first code (``action=enable``), which
shows the recovery codes once. With one: new recovery codes (``action=regenerate``) or
turning it off (``action=disable``), each only with a fresh second factor (a code of the
app, or a recovery code). Turning it off is a sensitive operation (:mod:`.freshness`): it
also needs a session signed in within ``session.fresh_age``.
"""

from __future__ import annotations

from typing import Any

from .._context import Context, Reply
from .._flow import Step, call_adapter
from ..pages import two_factor as pages
from .accounts import answer, notice, signed_in
from .factors import enable, enrol_form, new_codes, new_codes_page, verify_factor
from .limits import code_attempt


def setup_page(ctx: Context) -> Step[Reply]:
    """The set-up page, or the management page when two-factor is on."""
    current = yield from signed_in(ctx)
    if isinstance(current, Reply):
        return current
    return (yield from _page(ctx, current.user, "", status=200))


def _page(ctx: Context, user: dict[str, Any], error: str, *, status: int) -> Step[Reply]:
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", str(user["id"]))
    if not record:
        return enrol_form(
            ctx,
            _account(user),
            error,
            action_url=ctx.url("two-factor-setup"),
            status=status,
            action="enable",
        )
    codes_left = len(record.get("recovery_codes") or [])
    page = pages.manage_page(
        action_url=ctx.url("two-factor-setup"),
        csrf_token=ctx.csrf_token(),
        theme=ctx.settings.theme,
        codes_left=codes_left,
        error=error,
    )
    body = {"error": error} if error else {"enabled": True, "recovery_codes_left": codes_left}
    return answer(ctx, page, body, status)


def setup(ctx: Context) -> Step[Reply]:
    """Turn two-factor on, make new recovery codes, or turn it off."""
    ctx.check_csrf()
    action = ctx.form.get("action")
    current = yield from signed_in(ctx, "disable-two-factor" if action == "disable" else None)
    if isinstance(current, Reply):
        return current
    user, user_id = current.user, current.user_id
    here = ctx.url("two-factor-setup")
    if action == "enable":
        codes = yield from enable(ctx, user_id)
        if codes is None:
            return (yield from _page(ctx, user, "invalid_code", status=400))
        return new_codes_page(ctx, codes, here)
    if action not in ("regenerate", "disable"):
        return (yield from _page(ctx, user, "invalid_code", status=400))
    refused = yield from code_attempt(ctx, None, user_id)
    if refused is not None:
        return refused
    if not (yield from fresh_second_factor(ctx, user_id, ctx.form.get("code"))):
        return (yield from _page(ctx, user, "invalid_code", status=400))
    if action == "regenerate":
        codes = yield from new_codes(ctx, user_id)
        if codes is None:
            return (yield from _page(ctx, user, "invalid_code", status=400))
        return new_codes_page(ctx, codes, here)
    yield from call_adapter(ctx.settings.adapter, "delete_two_factor", user_id)
    ctx.out_cookies.delete(ctx.cookie_specs.trusted_device)
    return notice(
        ctx,
        "Two-factor authentication is off",
        "Signing in needs only your first factor now.",
        (here, "Set it up again"),
        {"enabled": False},
    )


def fresh_second_factor(ctx: Context, user_id: str, code: Any) -> Step[bool]:
    """Whether ``code`` is a right code of the user's app or one of their recovery codes."""
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", user_id)
    if not record:
        return False
    for method in ("totp", "recovery"):
        if (yield from verify_factor(ctx, user_id, record, method, code)):
            return True
    return False


def _account(user: dict[str, Any]) -> str:
    return str(user.get("email") or user["id"])
