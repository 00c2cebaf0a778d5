"""The rate limits' pure decisions (``sansio_auth.ratelimit``): verdicts over the counters'
contract (hypothesis, on the in-memory store every runtime uses by default), counter keys,
client addresses behind proxies, and the option's checks."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from io_bindings.db.memory import MemoryCounters
from sansio_auth import Request
from sansio_auth.errors import Configuration
from sansio_auth.ratelimit import (
    DEVICE_ACCOUNTS,
    DEVICE_RULES,
    RULES,
    KnownDevice,
    RateLimitSettings,
    Rule,
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
    resolve_rate_limits,
    verdict,
)

START = 1_800_000_000.0
SECRET = "a-secret-long-enough-for-the-tests-0123"


def utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def judge(store: MemoryCounters, rule: Rule, key: str, now: float) -> tuple[bool, float, bool]:
    """One attempt: (allowed, its window's end, first refusal)."""
    count, reset_at = store.increment_counter(key, rule.window, utc(now))
    judged = verdict(rule, count, reset_at.timestamp(), now)
    assert (judged.retry_after == 0) == judged.allowed
    if not judged.allowed:
        assert 1 <= judged.retry_after <= rule.window
    return judged.allowed, reset_at.timestamp(), judged.first_refusal


attempts_strategy = st.lists(
    st.tuples(st.sampled_from("abc"), st.integers(min_value=0, max_value=40)),
    max_size=120,
)
"""Attempts as (key, seconds after the previous attempt)."""


@given(
    attempts=attempts_strategy,
    limit=st.integers(min_value=1, max_value=6),
    window=st.integers(min_value=1, max_value=90),
)
def test_never_more_than_the_limit_per_window_and_windows_reset(
    attempts: list[tuple[str, int]], limit: int, window: int
) -> None:
    rule = Rule("credentials_per_account", limit, window)
    store = MemoryCounters()
    now = START
    windows: dict[tuple[str, float], list[bool]] = defaultdict(list)
    started: dict[str, float] = {}
    for key, gap in attempts:
        now += gap
        allowed, reset_at, _ = judge(store, rule, key, now)
        if key not in started or started[key] + window <= now:
            started[key] = now  # a window starts at the first attempt after the last one ended
            assert allowed, "the first attempt of a window is always allowed"
        assert reset_at == started[key] + window  # fixed: refusals do not prolong it
        windows[(key, reset_at)].append(allowed)
    for outcomes in windows.values():
        assert sum(outcomes) <= limit
        # the first `limit` attempts of a window pass, all later ones are refused
        assert outcomes == [n < limit for n in range(len(outcomes))]


@given(attempts=attempts_strategy, limit=st.integers(min_value=1, max_value=4))
def test_counters_of_different_keys_are_independent(
    attempts: list[tuple[str, int]], limit: int
) -> None:
    rule = Rule("email_per_address", limit, 60)
    together, alone = MemoryCounters(), MemoryCounters()
    now = START
    for key, gap in attempts:
        now += gap
        outcome = judge(together, rule, key, now)
        if key == "a":  # key "a" alone in its store decides the same, whatever b and c did
            assert judge(alone, rule, key, now) == outcome


@given(attempts=st.lists(st.integers(min_value=0, max_value=30), max_size=60))
def test_a_limit_trips_once_per_window(attempts: list[int]) -> None:
    rule = Rule("passkey_per_client", 3, 45)
    store = MemoryCounters()
    now = START
    trips: dict[float, int] = defaultdict(int)
    refused: dict[float, int] = defaultdict(int)
    for gap in attempts:
        now += gap
        allowed, reset_at, first = judge(store, rule, "k", now)
        trips[reset_at] += first
        refused[reset_at] += not allowed
    for reset_at, count in refused.items():
        assert trips[reset_at] == (1 if count else 0)


def test_the_memory_counters_forget_ended_windows() -> None:
    store = MemoryCounters()
    for n in range(100):
        store.increment_counter(f"k{n}", 60, utc(START))
    assert len(store) == 100
    store.increment_counter("later", 60, utc(START + 60))
    assert len(store) == 1


def settings(**options: object) -> object:
    return resolve_rate_limits(options, adapter=None, default_store=MemoryCounters(), secret=SECRET)


def test_counter_keys_are_hmacs_of_rule_and_value() -> None:
    limits = resolve_rate_limits(None, adapter=None, default_store=None, secret=SECRET)
    key = counter_key(limits, "email_per_address", "ada@example.com")
    assert key.startswith("rl:email_per_address:")
    assert "ada" not in key
    assert key == counter_key(limits, "email_per_address", "ada@example.com")
    assert key != counter_key(limits, "credentials_per_account", "ada@example.com")
    other = resolve_rate_limits(None, adapter=None, default_store=None, secret=SECRET + "x")
    assert key != counter_key(other, "email_per_address", "ada@example.com")


def test_the_defaults_are_on_and_stored_in_the_default_store() -> None:
    default = MemoryCounters()
    limits = resolve_rate_limits(None, adapter=object(), default_store=default, secret=SECRET)
    assert set(limits.rules) == set(RULES)
    assert limits.rules["credentials_per_account"] == Rule("credentials_per_account", 10, 900)
    assert limits.store is default
    assert limits.trusted_proxies == 0


def test_the_store_is_the_option_then_the_adapter_then_the_default() -> None:
    class Adapter:
        def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
            raise NotImplementedError

    adapter, chosen = Adapter(), Adapter()
    limits = resolve_rate_limits(None, adapter=adapter, default_store=object(), secret=SECRET)
    assert limits.store is adapter
    limits = resolve_rate_limits(
        {"store": chosen}, adapter=adapter, default_store=None, secret=SECRET
    )
    assert limits.store is chosen
    with pytest.raises(Configuration, match="increment_counter"):
        resolve_rate_limits({"store": object()}, adapter=None, default_store=None, secret=SECRET)


def test_limits_can_be_changed_and_turned_off() -> None:
    limits = resolve_rate_limits(
        {"email_per_address": (2, 60), "passkey_per_client": None},
        adapter=None,
        default_store=None,
        secret=SECRET,
    )
    assert limits.rules["email_per_address"] == Rule("email_per_address", 2, 60)
    assert "passkey_per_client" not in limits.rules
    off = resolve_rate_limits({"enabled": False}, adapter=None, default_store=None, secret=SECRET)
    assert off.rules == {}


@pytest.mark.parametrize("bad", [(0, 60), (5,), (5, 0), ("5", 60), (True, 60), 5])
def test_a_malformed_limit_is_a_configuration_error(bad: object) -> None:
    with pytest.raises(Configuration, match="credentials_per_account"):
        resolve_rate_limits(
            {"credentials_per_account": bad}, adapter=None, default_store=None, secret=SECRET
        )
    with pytest.raises(Configuration, match="unknown keys: per_ip"):
        resolve_rate_limits({"per_ip": (1, 1)}, adapter=None, default_store=None, secret=SECRET)
    with pytest.raises(Configuration, match="trusted_proxies"):
        resolve_rate_limits(
            {"trusted_proxies": -1}, adapter=None, default_store=None, secret=SECRET
        )
    with pytest.raises(Configuration, match="device_max_age"):
        resolve_rate_limits({"device_max_age": -1}, adapter=None, default_store=None, secret=SECRET)


def request(client: str | None, forwarded: str | None = None) -> Request:
    headers = {} if forwarded is None else {"x-forwarded-for": forwarded}
    return Request(method="POST", url="https://app.example/auth/x", headers=headers, client=client)


def test_the_client_is_the_peer_unless_proxies_are_trusted() -> None:
    spoofed = request("198.51.100.7", "1.2.3.4")
    assert client_address(spoofed, 0) == "198.51.100.7"  # X-Forwarded-For ignored by default
    assert client_address(request("10.0.0.2", "203.0.113.9"), 1) == "203.0.113.9"
    # a client writes its own X-Forwarded-For; the trusted proxy appends the address it saw
    assert client_address(request("10.0.0.2", "1.2.3.4, 203.0.113.9"), 1) == "203.0.113.9"
    assert client_address(request("10.0.0.3", "1.2.3.4, 203.0.113.9, 10.0.0.2"), 2) == (
        "203.0.113.9"
    )
    assert client_address(request("10.0.0.2"), 1) == "10.0.0.2"  # no header: the peer
    assert client_address(request("10.0.0.2", "not an address"), 1) == "10.0.0.2"
    assert client_address(request(None), 0) is None
    assert client_address(request("unix:/run/app.sock"), 0) is None
    assert client_address(request("[2001:db8::1]:443"), 0) == "2001:db8::1"
    assert client_address(request("192.0.2.1:5000"), 0) == "192.0.2.1"


def test_ipv6_clients_count_by_their_64() -> None:
    assert client_network("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert client_network("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert client_network("::ffff:192.0.2.5") == "192.0.2.5"
    assert client_network("192.0.2.5") == "192.0.2.5"


def test_the_account_field_of_a_credentials_form() -> None:
    declared = {"username": {"label": "User"}, "password": {"type": "password"}}
    assert account_field(None, declared) == "username"
    assert account_field(None, {"pin": {"type": "password"}}) is None
    assert account_field("login", declared) == "login"
    assert account_of({"username": "  Ada "}, "username") == "ada"
    assert account_of({"email": "Ada@Example.com"}, None) == "ada@example.com"
    assert account_of({"password": "x"}, None) is None
    assert account_of({"username": ["a"]}, "username") is None


# -- known devices ----------------------------------------------------------------------------

LIMITS: RateLimitSettings = resolve_rate_limits(
    None, adapter=None, default_store=MemoryCounters(), secret=SECRET
)
names = st.sampled_from(["ann@example.com", "bob@example.com", "ada", "user:7"])


@given(
    rule=st.sampled_from(RULES),
    account=st.one_of(st.none(), names),
    signed_in=st.lists(names, max_size=4),
    has_device=st.booleans(),
)
def test_a_device_is_charged_instead_of_exactly_the_accounts_that_signed_in_on_it(
    rule: str, account: str | None, signed_in: list[str], has_device: bool
) -> None:
    tags = tuple(account_tag(LIMITS, name) for name in signed_in)
    device = KnownDevice("d1", tags) if has_device else None
    spared = has_device and rule in DEVICE_RULES and account in signed_in
    assert charged(LIMITS, rule, account, device) == (
        (DEVICE_RULES[rule], "d1") if spared else (rule, account)
    )
    without_device_limits = resolve_rate_limits(
        {"credentials_per_device": None, "email_per_device": None},
        adapter=None,
        default_store=None,
        secret=SECRET,
    )
    assert charged(without_device_limits, rule, account, device) == (rule, account)


def test_account_tags_are_keyed_and_never_the_name() -> None:
    tag = account_tag(LIMITS, "ann@example.com")
    assert "ann" not in tag
    assert len(tag) == 22
    other = resolve_rate_limits(None, adapter=None, default_store=None, secret=SECRET + "x")
    assert account_tag(other, "ann@example.com") != tag
    assert account_tag(LIMITS, "bob@example.com") != tag


Actor = tuple[str, int]  # (who, seconds after the previous attempt)


@given(
    attempts=st.lists(
        st.tuples(st.sampled_from(["attacker", "owner", "thief"]), st.integers(0, 120)),
        max_size=120,
    ),
    account_limit=st.integers(min_value=1, max_value=5),
    device_limit=st.integers(min_value=1, max_value=5),
)
def test_others_attempts_never_change_what_a_known_device_is_told(
    attempts: list[Actor], account_limit: int, device_limit: int
) -> None:
    """An attacker (any browser but the owner's) attempts the owner's account; the owner's
    browser, a known device, and a thief with a copy of its cookie attempt it too. What the
    owner and the thief are told is what they would be told were the attacker not there, and
    together they never pass more than the device's limit per window."""
    limits = resolve_rate_limits(
        {
            "credentials_per_account": (account_limit, 300),
            "credentials_per_device": (device_limit, 300),
        },
        adapter=None,
        default_store=None,
        secret=SECRET,
    )
    ann = "ann@example.com"
    device = KnownDevice("the owner's browser", (account_tag(limits, ann),))

    def attempt(store: MemoryCounters, who: str, now: float) -> tuple[bool, float, bool]:
        rule, value = charged(
            limits, "credentials_per_account", ann, None if who == "attacker" else device
        )
        assert value is not None
        return judge(store, limits.rules[rule], counter_key(limits, rule, value), now)

    everyone, without_attacker = MemoryCounters(), MemoryCounters()
    now = START
    passed: dict[float, int] = defaultdict(int)
    for who, gap in attempts:
        now += gap
        told = attempt(everyone, who, now)
        if who != "attacker":
            assert told == attempt(without_attacker, who, now)
            passed[told[1]] += told[0]
    assert all(count <= device_limit for count in passed.values())


@given(
    known=st.lists(st.text(min_size=1, max_size=4), max_size=20),
    signed_in=st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=3),
)
def test_a_device_keeps_the_newest_accounts(known: list[str], signed_in: list[str]) -> None:
    kept = remembered(known, signed_in)
    assert len(kept) == len(set(kept)) <= DEVICE_ACCOUNTS
    assert kept[: len(set(signed_in))] == tuple(dict.fromkeys(signed_in))
    assert set(kept) <= set(known) | set(signed_in)
    device = read_device(device_claims(KnownDevice("d", kept)))
    assert device == KnownDevice("d", kept)


@pytest.mark.parametrize(
    "claims",
    [
        {},
        {"did": "", "acc": []},
        {"did": 5, "acc": []},
        {"did": "d", "acc": "x"},
        {"did": "d", "acc": [1]},
    ],
)
def test_claims_that_are_no_device_are_none(claims: dict[str, object]) -> None:
    assert read_device(claims) is None
