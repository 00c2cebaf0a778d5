"""Brute-force protection (not in Auth.js) as pure decisions: the limits in force, the keys
of their counters, the client address, and the verdict on a count.

A *limit* allows ``attempts`` per fixed window of ``seconds`` for each *key* (an account,
an e-mail address, a client network). Every attempt adds one to its key's counter, in a
store (:class:`sansio_auth.adapters.Counters`: the one call the engine asks a binding to
make); the count it answers decides. Fixed windows, counted from a key's first attempt:
at most ``attempts`` allowed in each, and once a window ends its key starts afresh, however
many refused attempts came meanwhile (a refusal never prolongs a lock-out).

Counter keys are HMACs (under a key derived from the first secret), so no store holds an
e-mail address or a client address in clear.

*Known devices* (OWASP's device cookies): a browser where an account signed in keeps an
encrypted cookie naming that account (by a keyed HMAC, :func:`account_tag`) and an id of its
own. An attempt from such a browser for an account it names is not counted against the
account (anyone can exhaust that counter, and would lock its owner out) but against the
device's own limit (:data:`DEVICE_RULES`, :func:`charged`): a stolen device cookie still
guesses only at that pace.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import math
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import msgspec

from .config import RateLimits, as_record
from .errors import Configuration
from .http import Request

RULES = (
    "credentials_per_account",
    "credentials_per_client",
    "credentials_per_device",
    "email_per_address",
    "email_per_client",
    "email_per_device",
    "passkey_per_client",
    "two_factor_per_user",
)
"""Every limit, by the name its option, its counters and its event use."""

DEVICE_RULES: Mapping[str, str] = {
    "credentials_per_account": "credentials_per_device",
    "email_per_address": "email_per_device",
}
"""The account limits a known device is spared, each with the device's own limit that counts
its attempts instead."""

DEVICE_ACCOUNTS = 12
"""Account tags a device cookie keeps at most (the newest): a few people sharing a computer."""

COUNTER_KEY_PREFIX = "rl:"
"""How every counter key of :func:`counter_key` starts."""

ACCOUNT_FIELDS = ("email", "username")
"""The credentials form fields that name an account when the provider declares none."""


class Rule(NamedTuple):
    """A limit in force."""

    name: str
    attempts: int
    window: int


class RateLimitSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The checked ``rate_limits`` option (derived; see :func:`resolve_rate_limits`)."""

    rules: Mapping[str, Rule]
    """The limits in force (an absent name is off)."""
    account_field: str | None
    trusted_proxies: int
    store: Any
    """What keeps the counters; ``None``: nothing does, so no limit applies."""
    key: bytes
    """The HMAC key of counter keys and account tags."""
    device_max_age: int
    """Seconds a device cookie lasts; 0: none is set or read."""


def resolve_rate_limits(
    value: RateLimits | Mapping[str, Any] | None,
    *,
    adapter: Any,
    default_store: Any,
    secret: str,
) -> RateLimitSettings:
    """The limits of ``value`` checked; the store: the option's, else the adapter when it
    keeps counters, else ``default_store`` (the runtime's memory)."""
    options = as_record(RateLimits, value, "rate_limits")
    rules: dict[str, Rule] = {}
    for name in RULES if options.enabled else ():
        limit = getattr(options, name)
        if limit is None:
            continue
        if (
            not isinstance(limit, tuple | list)
            or len(limit) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in limit)
        ):
            raise Configuration(
                f"`rate_limits.{name}` must be (attempts, seconds), two positive integers, "
                f"or None; got {limit!r}"
            )
        rules[name] = Rule(name, limit[0], limit[1])
    hops = options.trusted_proxies
    if isinstance(hops, bool) or not isinstance(hops, int) or hops < 0:
        raise Configuration("`rate_limits.trusted_proxies` must be a non-negative integer")
    store = options.store
    if store is None and callable(getattr(adapter, "increment_counter", None)):
        store = adapter
    if store is None:
        store = default_store
    if store is not None and not callable(getattr(store, "increment_counter", None)):
        raise Configuration("`rate_limits.store` must have an `increment_counter` method")
    device_max_age = options.device_max_age
    if (
        isinstance(device_max_age, bool)
        or not isinstance(device_max_age, int)
        or device_max_age < 0
    ):
        raise Configuration("`rate_limits.device_max_age` must be a non-negative integer (seconds)")
    key = hashlib.sha256(b"sansio-auth rate-limit keys\0" + secret.encode()).digest()
    return RateLimitSettings(
        rules=rules,
        account_field=options.account_field,
        trusted_proxies=hops,
        store=store,
        key=key,
        device_max_age=device_max_age,
    )


def counter_key(settings: RateLimitSettings, rule: str, value: str) -> str:
    """The counter of ``value`` (an account, an address, a network) for ``rule``."""
    digest = hmac.new(settings.key, f"{rule}\0{value}".encode(), hashlib.sha256).hexdigest()
    return f"{COUNTER_KEY_PREFIX}{rule}:{digest[:32]}"


class KnownDevice(NamedTuple):
    """A valid device cookie: the device's id, and the tags of the accounts that signed in on
    it (newest first)."""

    id: str
    accounts: tuple[str, ...]


def account_tag(settings: RateLimitSettings, account: str) -> str:
    """What a device cookie keeps of ``account`` (a normalised address or account name): a
    keyed HMAC, never the name."""
    digest = hmac.new(settings.key, f"device\0{account}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()


def charged(
    settings: RateLimitSettings, rule: str, account: str | None, device: KnownDevice | None
) -> tuple[str, str | None]:
    """The limit an attempt counts against, and the value its counter is keyed by: ``rule``
    and ``account``; or, when ``device`` names ``account`` and ``rule`` is an account limit
    whose device limit is in force, the device's limit and the device's id."""
    spared = DEVICE_RULES.get(rule)
    if (
        spared is not None
        and spared in settings.rules
        and device is not None
        and account
        and account_tag(settings, account) in device.accounts
    ):
        return spared, device.id
    return rule, account


def device_claims(device: KnownDevice) -> dict[str, Any]:
    """The claims a device cookie carries (encrypted)."""
    return {"did": device.id, "acc": list(device.accounts)}


def read_device(claims: Mapping[str, Any]) -> KnownDevice | None:
    """The device of decrypted cookie ``claims``; ``None`` when they are not a device's."""
    device_id, accounts = claims.get("did"), claims.get("acc")
    if not isinstance(device_id, str) or not device_id or not isinstance(accounts, list):
        return None
    if not all(isinstance(tag, str) for tag in accounts):
        return None
    return KnownDevice(device_id, tuple(accounts[:DEVICE_ACCOUNTS]))


def remembered(known: Iterable[str], signed_in: Iterable[str]) -> tuple[str, ...]:
    """The account tags a device keeps: ``signed_in`` (just now) first, then the ``known``
    ones, without repeats, at most :data:`DEVICE_ACCOUNTS`."""
    return tuple(dict.fromkeys((*signed_in, *known)))[:DEVICE_ACCOUNTS]


class Verdict(NamedTuple):
    """What a count means for an attempt."""

    allowed: bool
    retry_after: int
    """Seconds until the window ends (0 when allowed)."""
    first_refusal: bool
    """This is the window's first refused attempt (the limit has just tripped)."""


def verdict(rule: Rule, count: int, reset_at: float, now: float) -> Verdict:
    """The attempt that made the counter ``count`` (its window ending at ``reset_at``)."""
    if count <= rule.attempts:
        return Verdict(allowed=True, retry_after=0, first_refusal=False)
    wait = max(1, math.ceil(reset_at - now))
    return Verdict(allowed=False, retry_after=wait, first_refusal=count == rule.attempts + 1)


def client_address(request: Request, trusted_proxies: int) -> str | None:
    """The client's IP address: the one the server saw, or with ``trusted_proxies`` proxies
    in front, the ``X-Forwarded-For`` entry that many from its end (the address the
    outermost of them saw); ``None`` when unknown or not an IP address."""
    peer = _ip(request.client)
    if trusted_proxies == 0:
        return peer
    entries = [e.strip() for e in (request.header("x-forwarded-for") or "").split(",")]
    entries = [e for e in entries if e]
    if len(entries) < trusted_proxies:
        return peer  # fewer hops than configured: the proxies are not as said
    return _ip(entries[-trusted_proxies]) or peer


def client_network(address: str) -> str:
    """What a client is limited by: its IPv4 address, or the /64 of its IPv6 address (one
    subscriber's usual allocation: counting single IPv6 addresses would let one client use
    billions)."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _ip(value: str | None) -> str | None:
    """``value`` as a canonical IP address (port and IPv6 brackets dropped), or ``None``."""
    if not value:
        return None
    text = value.strip()
    if text.startswith("["):  # [v6]:port
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def account_field(configured: str | None, credentials: Mapping[str, Any]) -> str | None:
    """The credentials form field naming the account: ``configured``, else the first declared
    field that is not a password, else ``None`` (then :data:`ACCOUNT_FIELDS` are looked at)."""
    if configured is not None:
        return configured
    for name, spec in credentials.items():
        if str((spec or {}).get("type", "text")).lower() != "password":
            return name
    return None


def account_of(form: Mapping[str, Any], field: str | None) -> str | None:
    """The account a credentials form names, normalised (trimmed, case-folded), or ``None``."""
    names = (field,) if field is not None else ACCOUNT_FIELDS
    for name in names:
        value = form.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip().casefold()
    return None
