"""Where a sign-in stops for its second factor (not in Auth.js), and the cookies that carry it.

Every sign-in ends in :func:`~.login.finish_login`, which asks :func:`intercept` first. When
two-factor applies (:func:`sansio_auth.two_factor.decide`), no session is issued: the
sign-in is kept in the pending cookie — encrypted, for ``two_factor.challenge_max_age``
seconds — and the browser goes to ``two-factor`` (:mod:`.two_factor`), which finishes it
once the second factor is given. What the first factor wrote (a new user, a linked account)
stays, and its events are emitted here; ``events.sign_in`` waits for the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import jwt
from .._context import Context, Reply
from .._flow import Step, call_adapter, emit, log_warning
from ..cookies import read_chunked
from ..errors import Configuration, TwoFactorExpired
from ..two_factor import (
    Next,
    Pending,
    covers,
    decide,
    enrolled_at,
    pending_payload,
    read_pending,
    trust_payload,
    trusts,
)

if TYPE_CHECKING:
    from .strategies import LoginResult


def intercept(
    ctx: Context, login: LoginResult, profile: Mapping[str, Any] | None
) -> Step[Reply | None]:
    """``None`` when the session may be issued now; else the redirect to the challenge (or to
    the forced set-up), with the pending cookie set."""
    options = ctx.settings.two_factor
    if options is None or login.keep_session:
        return None
    account = login.account
    covered = covers(options.providers, str(account.get("provider")), str(account.get("type")))
    if not covered:
        return None
    user_id = str(login.user["id"])
    record = yield from call_adapter(ctx.settings.adapter, "get_two_factor", user_id)
    since = enrolled_at(record)
    trusted = yield from trusted_device(ctx, user_id, since)
    step = decide(
        covered=covered,
        enrolled=since is not None,
        required=options.require_two_factor,
        trusted=trusted,
    )
    if step is Next.SIGN_IN:
        return None
    if step is Next.ENROL and not (
        yield from call_adapter(ctx.settings.adapter, "get_user", user_id)
    ):
        raise Configuration(
            f"two-factor is required, but the users of provider {login.account.get('provider')!r} "
            "are not stored by the adapter (a credentials provider's): they cannot set one up"
        )
    events = ctx.settings.events
    for name, message in login.events:
        yield from emit(getattr(events, name), name, **message)
    pending = Pending(
        user_id=user_id,
        account=dict(login.account),
        id=ctx.random_hex(16),
        profile=dict(profile) if profile is not None else None,
        is_new_user=login.is_new_user,
        enrol=step is Next.ENROL,
        label=str(login.user.get("email") or user_id),
        kept_at=login.kept_at,
    )
    set_pending(ctx, pending)
    yield from ctx.callback_url()  # kept in its cookie for when the sign-in completes
    return Reply(redirect=ctx.url("two-factor"))


def set_pending(ctx: Context, pending: Pending) -> None:
    """Keep ``pending`` in its encrypted cookie (chunked when an account's tokens are long)."""
    assert ctx.settings.two_factor is not None
    spec = ctx.cookie_specs.two_factor
    max_age = ctx.settings.two_factor.challenge_max_age
    value = ctx.seal(spec, pending_payload(pending), max_age)
    _, present = read_chunked(ctx.cookies, spec.name)
    ctx.out_cookies.set_chunked(spec, value, ctx.now, present, expires_in=max_age)


def pending_of(ctx: Context) -> Pending:
    """The sign-in this browser has waiting; :class:`TwoFactorExpired` if none is valid."""
    spec = ctx.cookie_specs.two_factor
    value, present = read_chunked(ctx.cookies, spec.name)
    if value is None:
        raise TwoFactorExpired("no sign-in is waiting for a second factor")
    try:
        return read_pending(ctx.unseal(spec, value))
    except ValueError as err:  # jwt.InvalidToken included: expired, altered, another secret
        ctx.out_cookies.delete_chunks(spec, present)
        raise TwoFactorExpired(
            "the waiting sign-in expired or was altered", cause={"err": err}
        ) from err


def clear_pending(ctx: Context) -> None:
    """Delete the pending cookie (the sign-in completed)."""
    spec = ctx.cookie_specs.two_factor
    _, present = read_chunked(ctx.cookies, spec.name)
    ctx.out_cookies.delete_chunks(spec, present)


def trusted_device(ctx: Context, user_id: str, since: int | None) -> Step[bool]:
    """Whether the browser's "trust this device" cookie is valid for ``user_id`` and the
    second factor set up at ``since``; a cookie that cannot be read is deleted and logged."""
    spec = ctx.cookie_specs.trusted_device
    value = ctx.cookies.get(spec.name)
    if not value or since is None:
        return False
    try:
        claims = ctx.unseal(spec, value)
    except jwt.InvalidToken as err:
        ctx.out_cookies.delete(spec)
        yield from log_warning("trusted-device-refused", f"the trust cookie was refused: {err}")
        return False
    return trusts(claims, user_id, since)


def trust_device(ctx: Context, user_id: str, since: int) -> None:
    """Set the "trust this device" cookie for ``two_factor.trust_device_days`` days."""
    options = ctx.settings.two_factor
    assert options is not None
    days = options.trust_device_days
    if days <= 0:
        return
    spec = ctx.cookie_specs.trusted_device
    max_age = days * 24 * 60 * 60
    value = ctx.seal(spec, trust_payload(user_id, since), max_age)
    ctx.out_cookies.set(spec.make(value, ctx.now, expires_in=max_age))
