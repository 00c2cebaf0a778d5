"""Rate limits on sign-in attempts (not in Auth.js): each attempt is counted, and refused with
``429`` once its key is over the limit (decisions in :mod:`sansio_auth.ratelimit`).

Credentials and password sign-ins are limited per client and per account (as is the current
password a signed-in user gives to change their password or address), e-mails requested
(sign-in links, the password provider's sign-up, reset, change-of-address and second-factor
e-mails) per client and per address, passkey sign-ins per client, second-factor codes per
user. The client's limit is asked first: an attempt it refuses does not count against the
account. A store that fails is logged and the attempt goes on (the limits fail open: an
outage of the counters' store does not lock everyone out).

Every sign-in (and every reset link used) makes the browser a *known device* of its account
(:func:`remember_device`): its attempts for that account then count against the device's own
limits instead of the account's, which anyone who knows the address can exhaust.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .. import jwt
from .._context import NO_CACHE, Context, Reply, add_query, json_reply
from .._flow import Step, call_adapter, emit, log_error, log_warning
from ..errors import Configuration
from ..providers import CredentialsProvider, EmailProvider, PasswordProvider
from ..providers.email import normalize_email
from ..ratelimit import (
    DEVICE_RULES,
    KnownDevice,
    account_field,
    account_of,
    account_tag,
    charged,
    client_address,
    client_network,
    counter_key,
    device_claims,
    read_device,
    remembered,
    verdict,
)
from .strategies import utc

if TYPE_CHECKING:
    from .strategies import LoginResult

RATE_LIMITED = "RateLimited"
"""The ``error`` of a refused attempt (JSON answers, the sign-in page's banner)."""


def attempt(
    ctx: Context,
    provider: str | None,
    *,
    client_rule: str | None,
    account_rule: str | None = None,
    account: str | None = None,
) -> Step[Reply | None]:
    """Count a sign-in attempt with ``provider`` against the client's limit, then the
    account's (``account``: an account name, an address or a user id), or from a known
    device of the account, the device's; ``None`` to go on, else the ``429`` answer."""
    limits = ctx.settings.rate_limits
    if not limits.rules or limits.store is None:
        return None
    address = client_address(ctx.request, limits.trusted_proxies)
    checks: list[tuple[str, str | None]] = []
    if client_rule is not None:
        checks.append((client_rule, None if address is None else client_network(address)))
    if account_rule is not None:
        checks.append(charged(limits, account_rule, account, known_device(ctx)))
    for rule, value in checks:
        refused = yield from _count(ctx, rule, value, provider, account, address)
        if refused is not None:
            return refused
    return None


def email_attempt(ctx: Context, provider: str, address: str | None) -> Step[Reply | None]:
    """An e-mail requested for ``address``, counted per client and per address."""
    return (
        yield from attempt(
            ctx,
            provider,
            client_rule="email_per_client",
            account_rule="email_per_address",
            account=address,
        )
    )


def password_attempt(ctx: Context, provider: str, account: str | None) -> Step[Reply | None]:
    """A password checked for ``account`` (an address, an account name), counted per client
    and per account."""
    return (
        yield from attempt(
            ctx,
            provider,
            client_rule="credentials_per_client",
            account_rule="credentials_per_account",
            account=account,
        )
    )


def code_attempt(ctx: Context, provider: str | None, user_id: str) -> Step[Reply | None]:
    """A second-factor code checked for ``user_id``, counted per user (``provider``: the
    first factor's, for the event)."""
    return (
        yield from attempt(
            ctx, provider, client_rule=None, account_rule="two_factor_per_user", account=user_id
        )
    )


def known_device(ctx: Context) -> KnownDevice | None:
    """The browser's device cookie, when it is valid (one that is not is deleted)."""
    spec = ctx.cookie_specs.known_device
    value = ctx.cookies.get(spec.name)
    if not value or not ctx.settings.rate_limits.device_max_age:
        return None
    try:
        device = read_device(ctx.unseal(spec, value))
    except jwt.InvalidToken:
        device = None
    if device is None:
        ctx.out_cookies.delete(spec)
    return device


def remember_device(ctx: Context, names: Iterable[str]) -> None:
    """Make this browser a known device of the accounts ``names`` (normalised addresses or
    account names, as the limits count them) for ``rate_limits.device_max_age`` seconds,
    besides those it named already. Its id stays: signing in again does not start its
    limits afresh."""
    limits = ctx.settings.rate_limits
    if not limits.device_max_age or limits.store is None or not _spared(ctx):
        return
    tags = [account_tag(limits, name) for name in names if name]
    if not tags:
        return
    known = known_device(ctx)
    device = KnownDevice(
        id=known.id if known is not None else ctx.random_hex(16),
        accounts=remembered(known.accounts if known is not None else (), tags),
    )
    spec = ctx.cookie_specs.known_device
    value = ctx.seal(spec, device_claims(device), limits.device_max_age)
    ctx.out_cookies.drop(spec.name)  # a deletion `known_device` decided is void now
    ctx.out_cookies.set(spec.make(value, ctx.now, expires_in=limits.device_max_age))


def _spared(ctx: Context) -> bool:
    """Whether a device limit is in force and a provider counts what it spares (password
    checks, e-mails asked for): else a device cookie is of no use."""
    settings = ctx.settings
    return not set(DEVICE_RULES.values()).isdisjoint(settings.rate_limits.rules) and any(
        isinstance(p, CredentialsProvider | PasswordProvider | EmailProvider)
        for p in settings.providers
    )


def remember_sign_in(ctx: Context, login: LoginResult) -> None:
    """:func:`remember_device` for the accounts a sign-in proved: the user's address (else
    their id), the address of an e-mail link as its provider normalised it, and the account
    name posted to a credentials provider."""
    user, account = login.user, login.account
    names = [_address_of(user.get("email")) or f"user:{user.get('id')}"]
    if account.get("type") == "email":
        names.append(str(account.get("provider_account_id") or ""))
    if account.get("type") == "credentials" and ctx.action == "callback":
        provider = next(
            (p for p in ctx.settings.providers if p.id == ctx.provider_id == account["provider"]),
            None,
        )
        if isinstance(provider, CredentialsProvider):
            field = account_field(ctx.settings.rate_limits.account_field, provider.credentials)
            names.append(account_of(ctx.form, field) or "")
    remember_device(ctx, names)


def _address_of(value: Any) -> str | None:
    """``value`` as the limits count an address (normalised), or ``None``."""
    try:
        return normalize_email(value)
    except ValueError:
        return None


def _count(
    ctx: Context,
    rule: str,
    value: str | None,
    provider: str | None,
    identifier: str | None,
    client: str | None,
) -> Step[Reply | None]:
    limits = ctx.settings.rate_limits
    limit = limits.rules.get(rule)
    if limit is None or not value:
        return None
    key = counter_key(limits, rule, value)
    try:
        answer = yield from call_adapter(
            limits.store, "increment_counter", key, limit.window, utc(ctx.now)
        )
        count, reset_at = _counter(answer)
    except Exception as err:
        yield from log_error(err)
        return None
    judged = verdict(limit, count, reset_at, ctx.now)
    if judged.allowed:
        return None
    if judged.first_refusal:
        yield from log_warning(
            "rate-limited", f"{rule}: over {limit.attempts} attempts in {limit.window} s"
        )
        yield from emit(
            ctx.settings.events.rate_limited,
            "rate_limited",
            limit=rule,
            provider=provider,
            identifier=identifier,
            client=client,
            retry_after=judged.retry_after,
        )
    return refusal(ctx, judged.retry_after)


def _counter(answer: Any) -> tuple[int, float]:
    """``increment_counter``'s ``(count, reset_at)`` (a datetime or Unix seconds)."""
    if isinstance(answer, tuple | list) and len(answer) == 2:
        count, reset_at = answer
        if isinstance(reset_at, datetime):
            reset_at = reset_at.timestamp()
        if (
            isinstance(count, int)
            and not isinstance(count, bool)
            and isinstance(reset_at, int | float)
            and not isinstance(reset_at, bool)
        ):
            return count, float(reset_at)
    raise Configuration(f"`increment_counter` must return (count, reset_at), not {answer!r}")


def refusal(ctx: Context, retry_after: int) -> Reply:
    """``429`` with ``Retry-After``: the themed page, or JSON for a client that asked for it
    (``{"error", "retry_after", "url"}``, ``url`` the sign-in page with ``?error=``, which
    Auth.js's client reads)."""
    headers = (("retry-after", str(retry_after)), *NO_CACHE)
    signin = ctx.page_url(ctx.settings.pages.sign_in, "signin")
    if _wants_json(ctx):
        body = {
            "error": RATE_LIMITED,
            "retry_after": retry_after,
            "url": add_query(signin, {"error": RATE_LIMITED}),
        }
        return json_reply(body, status=429, headers=headers)
    page = ctx.page_reply(
        "rate-limited", {"retry_after": retry_after, "signin_url": signin}, status=429
    )
    page.headers = (*page.headers, *headers)
    return page


def _wants_json(ctx: Context) -> bool:
    """A script's request (Auth.js's client sends ``X-Auth-Return-Redirect``) or one that
    accepts JSON but not HTML."""
    request = ctx.request
    if request.header("x-auth-return-redirect") is not None:
        return True
    accept = (request.header("accept") or "").lower()
    return "application/json" in accept and "text/html" not in accept
