"""An unverified address claimed by its owner: no pre-registered way into their account.

Anyone can create an account with an address that is not theirs and give it a password (a
sign-up, with ``require_verified_email=False`` even a session), a second factor or a linked
provider account. When the owner later proves the address another way (an e-mail sign-in
link, a password-reset link), they become that account, and those ways in would still let
the other person in: account pre-hijacking. So the first proof of an address removes every
way in set while it was unverified — the password, the second factor, linked provider
accounts and passkeys — ends every session of the account, and tells the owner by e-mail.
The account itself (its id, what the app keeps under it) stays.

A provider account never joins an unverified account by its address (see
:func:`.login.decide_link`), and a provider that vouches for the address (its profile's
``email_verified``) verifies it when it signs up or is linked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._context import Context
from .._flow import Step, call_adapter, emit, log_error, log_warning
from .accounts import password_provider_or_none, send
from .revocation import revocation_time, revoke, sessions_cannot_end


def claim_address(ctx: Context, user: Mapping[str, Any]) -> Step[float | None]:
    """``user``'s address has just been proved by its owner: when it was unverified, remove
    the ways in set before (see the module) and end the user's sessions. The time of that
    revocation, which the session this proof issues must survive (``None``: none was made)."""
    if user.get("email_verified"):
        return None
    adapter, user_id = ctx.settings.adapter, str(user["id"])
    removed = []
    if _has(ctx, "get_password_hash") and (
        (yield from call_adapter(adapter, "get_password_hash", user_id)) is not None
    ):
        yield from call_adapter(adapter, "set_password_hash", user_id, None)
        removed.append("password")
    if _has(ctx, "delete_two_factor") and (
        (yield from call_adapter(adapter, "delete_two_factor", user_id)) is not None
    ):
        removed.append("second factor")
    if _has(ctx, "list_accounts_by_user_id"):
        accounts = yield from call_adapter(adapter, "list_accounts_by_user_id", user_id)
        for account in accounts or ():
            yield from call_adapter(
                adapter, "unlink_account", account["provider"], account["provider_account_id"]
            )
            removed.append(f"{account['provider']} account")
            yield from emit(
                ctx.settings.events.unlink_account, "unlink_account", user=user, account=account
            )
    if not removed:
        return None
    yield from log_warning(
        "unverified-sign-in-methods-removed",
        f"the address of user {user_id} was proved by its owner: removed what was set before "
        f"it was verified ({', '.join(removed)})",
    )
    kept_at = yield from _end_sessions(ctx, user_id)
    yield from _tell(ctx, user)
    return kept_at


def _has(ctx: Context, method: str) -> bool:
    return callable(getattr(ctx.settings.adapter, method, None))


def _end_sessions(ctx: Context, user_id: str) -> Step[float | None]:
    cannot = sessions_cannot_end(ctx)
    if cannot is not None:
        yield from log_warning("sessions-not-ended", cannot)
        return None
    yield from revoke(ctx, user_id=user_id)
    return revocation_time(ctx)


def _tell(ctx: Context, user: Mapping[str, Any]) -> Step[None]:
    """The owner's e-mail (sent by the password provider's sender, when there is one); a
    failure to send is logged: what was removed stays removed."""
    provider = password_provider_or_none(ctx)
    if provider is None:
        return
    try:
        yield from send(
            ctx, provider, "sign-in-methods-removed", to=str(user["email"]), url=ctx.origin
        )
    except Exception as err:
        yield from log_error(err)
