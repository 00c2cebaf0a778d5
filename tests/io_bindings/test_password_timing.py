"""Failed password checks held back to the costliest kind of check (io_bindings._password_timing):
the rule on given durations (no clock), and both runtimes holding a failed check back and
never a correct one."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from io_bindings._password_timing import KINDS, PasswordCheckTimes, cost_kind
from io_bindings.anyio import Auth
from io_bindings.db.memory import MemoryAdapter
from io_bindings.sync import SyncAuth
from sansio_auth import AuthConfig, Request
from sansio_auth.events import Event, PasswordChecked, VerifyPassword
from sansio_auth.passwords import hash_password
from sansio_auth.providers import Password
from tests.io_bindings.test_accounts_runtime import CSRF, sign_in_request
from tests.sansio_auth.accounts_peer import FAST, Outbox
from tests.sansio_auth.test_passwords import django_pbkdf2

ARGON2 = hash_password("a passphrase", b"0123456789abcdef", FAST)
PBKDF2 = django_pbkdf2("a passphrase", iterations=1_000_000)
BCRYPT = "$2b$12$" + "a" * 53


def check(stored: str | None) -> VerifyPassword:
    return VerifyPassword(password="a guess", stored=stored, params=FAST)


FAILED, PASSED = PasswordChecked(valid=False), PasswordChecked(valid=True)


def test_hash_kinds_are_format_and_cost_without_salt_or_digest() -> None:
    assert cost_kind(ARGON2) == "$argon2id$v=19$m=64,t=1,p=1"
    assert cost_kind(PBKDF2) == "pbkdf2_sha256$1000000"
    assert cost_kind(django_pbkdf2("x", salt="other", iterations=1_000_000)) == cost_kind(PBKDF2)
    assert cost_kind(BCRYPT) == "$2b$12"
    assert cost_kind("bcrypt$" + BCRYPT) == "bcrypt$$2b$12"
    assert cost_kind("argon2" + ARGON2) == "argon2$argon2id$v=19$m=64,t=1,p=1"
    assert cost_kind(None) == "none"
    assert cost_kind("md5$whatever") == "other"


def test_a_failure_waits_for_the_costliest_kind_and_a_success_never_waits() -> None:
    times = PasswordCheckTimes()
    assert times.hold(check(None), FAILED, 0.03) == 0  # nothing costlier seen yet
    assert times.hold(check(PBKDF2), FAILED, 0.40) == 0  # the costliest kind itself
    assert times.hold(check(None), FAILED, 0.03) == pytest.approx(0.37)
    assert times.hold(check(ARGON2), FAILED, 0.05) == pytest.approx(0.35)
    assert times.hold(check(ARGON2), PASSED, 0.05) == 0
    assert times.hold(check(PBKDF2), PASSED, 0.41) == 0


def test_one_stall_does_not_slow_every_failure_after_it() -> None:
    times = PasswordCheckTimes()
    for _ in range(19):
        times.hold(check(PBKDF2), FAILED, 0.40)
    times.hold(check(PBKDF2), FAILED, 5.0)  # a stall: the machine was busy
    assert times.hold(check(None), FAILED, 0.03) == pytest.approx(0.37)


def test_the_kinds_kept_are_bounded_the_cheapest_forgotten() -> None:
    times = PasswordCheckTimes()
    times.hold(check(PBKDF2), FAILED, 0.4)
    for n in range(KINDS * 2):
        times.hold(check(f"pbkdf2_sha256${n + 1}$salt$digest"), FAILED, 0.001 * n)
    costs = times.costs()
    assert len(costs) == KINDS
    assert costs[cost_kind(PBKDF2)] == 0.4


@given(
    st.lists(
        st.tuples(
            st.sampled_from([None, ARGON2, PBKDF2, BCRYPT]),
            st.floats(min_value=0.001, max_value=2.0),
            st.booleans(),
        ),
        min_size=1,
        max_size=60,
    )
)
def test_a_failed_check_lasts_at_least_every_kinds_cost(
    checks: list[tuple[str | None, float, bool]],
) -> None:
    times = PasswordCheckTimes()
    for stored, seconds, valid in checks:
        event: Event = PASSED if valid else FAILED
        hold = times.hold(check(stored), event, seconds)
        if valid:
            assert hold == 0
        else:
            assert seconds + hold >= max(times.costs().values()) - 1e-9
            assert hold == 0 or seconds + hold == pytest.approx(max(times.costs().values()))


class Recorded(PasswordCheckTimes):
    """Holds a failure back 0.3 s and notes every check filed."""

    def __init__(self) -> None:
        super().__init__()
        self.filed: list[tuple[str, bool]] = []

    def hold(self, action: VerifyPassword, event: Event, seconds: float) -> float:
        valid = isinstance(event, PasswordChecked) and event.valid
        self.filed.append((cost_kind(action.stored), valid))
        return 0.0 if valid else 0.3


def config() -> AuthConfig:
    adapter = MemoryAdapter()
    adapter.store.create_user({"id": "1", "email": "ann@example.com", "email_verified": None})
    adapter.store.passwords["1"] = django_pbkdf2("a passphrase", iterations=1000)
    return AuthConfig(
        secret="s" * 40,
        trust_host=True,
        adapter=adapter,
        providers=[Password(send_email=Outbox(), argon2=FAST, require_verified_email=False)],
        session={"strategy": "jwt"},
        rate_limits={"enabled": False},
    )


def test_the_sync_runtime_holds_failures_back() -> None:
    auth = SyncAuth(config())
    auth.password_checks = recorded = Recorded()

    def sign_in(email: str, password: str) -> tuple[Any, float]:
        csrf = auth.respond(CSRF)
        began = time.monotonic()
        answer = auth.respond(sign_in_request(auth, csrf, email, password))
        return answer, time.monotonic() - began

    for email in ("ann@example.com", "nobody@example.com"):
        refused, took = sign_in(email, "a wrong guess")
        assert "error=CredentialsSignin" in refused.location
        assert took >= 0.3
    signed_in, _ = sign_in("ann@example.com", "a passphrase")
    assert signed_in.location == "http://localhost"
    assert recorded.filed == [
        ("pbkdf2_sha256$1000", False),
        ("none", False),
        ("pbkdf2_sha256$1000", True),
    ]


@pytest.mark.anyio
async def test_the_async_runtime_holds_failures_back() -> None:
    auth = Auth(config())
    auth.password_checks = recorded = Recorded()

    async def sign_in(email: str, password: str) -> tuple[Any, float]:
        csrf = await auth.respond(CSRF)
        request: Request = sign_in_request(auth, csrf, email, password)
        began = time.monotonic()
        answer = await auth.respond(request)
        return answer, time.monotonic() - began

    refused, took = await sign_in("nobody@example.com", "a wrong guess")
    assert "error=CredentialsSignin" in refused.location
    assert took >= 0.3
    signed_in, _ = await sign_in("ann@example.com", "a passphrase")
    assert signed_in.location == "http://localhost"
    assert recorded.filed == [("none", False), ("pbkdf2_sha256$1000", True)]
