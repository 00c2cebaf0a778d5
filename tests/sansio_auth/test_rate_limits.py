"""Rate limits through the engine: credentials sign-ins (per client, per account), e-mail link
requests (per client, per address) and passkey sign-ins (per client); the 429 page and JSON,
``Retry-After``, ``events.rate_limited``, and a store that fails."""

from __future__ import annotations

from typing import Any

import pytest

from io_bindings.db.memory import MemoryCounters
from sansio_auth import AuthConfig, Engine, Response
from sansio_auth.events import CallAdapter
from sansio_auth.providers import Credentials, Email
from sansio_auth.testing import SECRET, Browser, Clock, Performer, seeded_entropy
from tests.sansio_auth.adapter_faults import FaultyAdapter
from tests.sansio_auth.driver import query_of
from tests.sansio_auth.webauthn_peer import PasskeyPeer

CLIENT = "203.0.113.7"


class Audit:
    """``events.rate_limited`` handler keeping every call."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **message: Any) -> None:
        self.calls.append(message)


def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    if credentials.get("password") == "right":
        return {"id": "1", "email": f"{credentials['username']}@example.com"}
    return None


def browser(
    counters: Any = None, *, clock: Clock | None = None, **options: Any
) -> tuple[Browser, Performer]:
    options.setdefault("providers", [Credentials(authorize=authorize)])
    clock = clock or Clock()
    config = AuthConfig(secret=SECRET, trust_host=True, **options)
    store = MemoryCounters() if counters is None else counters
    engine = Engine(config, clock=clock, entropy=seeded_entropy(0), env={}, counters=store)
    performer = Performer()
    peer = Browser.on(engine, clock, performer=performer)
    peer.client = CLIENT
    return peer, performer


def attempt(peer: Browser, username: str = "ada", password: str = "wrong", **kw: Any) -> Response:
    form = {"csrfToken": peer.csrf_token(), "username": username, "password": password}
    return peer.post("/auth/callback/credentials", form=form, **kw)


def authorized(performer: Performer) -> int:
    return len(performer.invoked("authorize"))


def test_credentials_per_account_answers_429_with_retry_after() -> None:
    audit = Audit()
    peer, performer = browser(
        rate_limits={"credentials_per_account": (3, 60)}, events={"rate_limited": audit}
    )
    for _ in range(3):
        refused = attempt(peer)
        assert refused.status == 302
        assert query_of(refused.location or "")["error"] == "CredentialsSignin"
    assert authorized(performer) == 3
    limited = attempt(peer)
    assert limited.status == 429
    assert limited.header("retry-after") == "60"
    assert limited.header("content-type") == "text/html; charset=utf-8"
    assert "no-store" in (limited.header("cache-control") or "")
    page = limited.body.decode()
    assert "Too many attempts" in page
    assert "Try again in 1 minute" in page
    assert 'href="http://localhost:3000/auth/signin"' in page
    assert authorized(performer) == 3  # refused before `authorize` ran
    assert attempt(peer, password="right").status == 429  # the right password waits too
    assert audit.calls == [
        {
            "limit": "credentials_per_account",
            "provider": "credentials",
            "identifier": "ada",
            "client": CLIENT,
            "retry_after": 60,
        }
    ]  # once: when the limit tripped


def test_the_window_ends_and_the_account_may_try_again() -> None:
    clock = Clock()
    peer, _ = browser(rate_limits={"credentials_per_account": (2, 60)}, clock=clock)
    attempt(peer), attempt(peer)
    clock.advance(30)
    refused = attempt(peer)
    assert refused.status == 429
    assert refused.header("retry-after") == "30"
    clock.advance(30)
    signed_in = attempt(peer, password="right")
    assert signed_in.status == 302
    assert peer.session()["user"]["email"] == "ada@example.com"


def test_other_accounts_are_not_held_back_by_one() -> None:
    peer, _ = browser(rate_limits={"credentials_per_account": (2, 60)})
    for _ in range(3):
        attempt(peer, username="ada")
    assert attempt(peer, username="ADA ").status == 429  # the same account, normalised
    assert attempt(peer, username="grace", password="right").status == 302


def test_credentials_per_client_counts_every_account() -> None:
    peer, _ = browser(rate_limits={"credentials_per_client": (3, 60)})
    for name in ("a", "b", "c"):
        assert attempt(peer, username=name).status == 302
    assert attempt(peer, username="d").status == 429
    other = peer.another()
    other.client = "198.51.100.1"
    assert attempt(other, username="d", password="right").status == 302


def test_x_forwarded_for_counts_only_behind_trusted_proxies() -> None:
    peer, _ = browser(rate_limits={"credentials_per_client": (1, 60)})
    attempt(peer, headers={"x-forwarded-for": "1.1.1.1"}, username="a")
    spoofed = attempt(peer, headers={"x-forwarded-for": "2.2.2.2"}, username="b")
    assert spoofed.status == 429  # a client's own X-Forwarded-For changes nothing
    behind, _ = browser(rate_limits={"credentials_per_client": (1, 60), "trusted_proxies": 1})
    behind.client = "10.0.0.2"  # the proxy
    assert attempt(behind, headers={"x-forwarded-for": "1.1.1.1"}, username="a").status == 302
    assert attempt(behind, headers={"x-forwarded-for": "2.2.2.2"}, username="b").status == 302
    assert attempt(behind, headers={"x-forwarded-for": "1.1.1.1"}, username="c").status == 429


def test_a_script_gets_json_with_the_sign_in_url() -> None:
    peer, _ = browser(rate_limits={"credentials_per_account": (1, 90)})
    attempt(peer)
    limited = attempt(peer, headers={"x-auth-return-redirect": "1"})
    assert limited.status == 429
    assert limited.header("retry-after") == "90"
    assert limited.json() == {
        "error": "RateLimited",
        "retry_after": 90,
        "url": "http://localhost:3000/auth/signin?error=RateLimited",
    }
    assert attempt(peer, headers={"accept": "application/json"}).status == 429


def test_the_sign_in_page_explains_the_refusal() -> None:
    peer, _ = browser()
    page = peer.get("/auth/signin?error=RateLimited").body.decode()
    assert "Too many attempts" in page


def test_the_stored_keys_hold_no_address_or_account() -> None:
    counters = MemoryCounters()
    peer, _ = browser(counters)
    attempt(peer, username="ada@example.com")
    keys = list(counters._counters)
    assert len(keys) == 2  # the client's and the account's
    assert all(k.startswith("rl:credentials_per_") for k in keys)
    assert not any("ada" in k or "203.0.113" in k for k in keys)


def test_limits_can_be_turned_off() -> None:
    peer, performer = browser(rate_limits={"enabled": False})
    for _ in range(15):
        attempt(peer)
    calls = [a for a in performer.actions if isinstance(a, CallAdapter)]
    assert calls == []


def test_no_client_address_means_no_per_client_limit() -> None:
    peer, _ = browser(rate_limits={"credentials_per_client": (1, 60)})
    peer.client = None
    assert attempt(peer, username="a").status == 302
    assert attempt(peer, username="b").status == 302


class BrokenCounters:
    def increment_counter(self, key: str, window: int, now: object) -> Any:
        raise ConnectionError("the counters' store is down")


class OddCounters:
    def increment_counter(self, key: str, window: int, now: object) -> Any:
        return "not (count, reset_at)"


@pytest.mark.parametrize(
    ("store", "logged"), [(BrokenCounters(), "AdapterError"), (OddCounters(), "Configuration")]
)
def test_a_failing_store_is_logged_and_lets_the_attempt_through(store: Any, logged: str) -> None:
    peer, performer = browser(store, rate_limits={"credentials_per_account": (1, 60)})
    for _ in range(3):
        assert attempt(peer).status == 302
    assert authorized(performer) == 3
    assert performer.log_codes("error").count(logged) == 6  # the client's and the account's


# -- e-mail ------------------------------------------------------------------------------------


class Outbox:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def __call__(self, identifier: str, url: str) -> None:
        self.sent.append(identifier)


def email_browser(**limits: Any) -> tuple[Browser, Outbox, FaultyAdapter]:
    outbox, db = Outbox(), FaultyAdapter()
    peer, _ = browser(
        adapter=db,
        providers=[Email(send_verification_request=outbox)],
        rate_limits=limits,
    )
    return peer, outbox, db


def request_link(peer: Browser, email: str) -> Response:
    form = {"csrfToken": peer.csrf_token(), "email": email}
    return peer.post("/auth/signin/email", form=form)


def test_email_per_address_stops_mail_bombing_one_inbox() -> None:
    peer, outbox, db = email_browser(email_per_address=(2, 600))
    for _ in range(2):
        assert request_link(peer, "Ada@Example.com").status == 302
    limited = request_link(peer, "ada@example.com")
    assert limited.status == 429
    assert limited.header("retry-after") == "600"
    assert outbox.sent == ["ada@example.com", "ada@example.com"]
    assert len(db.called("create_verification_token")) == 2
    assert db.called("increment_counter")  # the adapter keeps the counters: it has them
    assert request_link(peer, "grace@example.com").status == 302


def test_email_per_client_counts_every_address() -> None:
    peer, outbox, _ = email_browser(email_per_client=(2, 600))
    request_link(peer, "a@example.com"), request_link(peer, "b@example.com")
    assert request_link(peer, "c@example.com").status == 429
    assert request_link(peer, "not an address").status == 429  # refused addresses count too
    assert outbox.sent == ["a@example.com", "b@example.com"]


# -- passkeys ----------------------------------------------------------------------------------


def test_passkey_attempts_per_client() -> None:
    peer = PasskeyPeer.build(rate_limits={"passkey_per_client": (2, 60)})
    peer.browser.client = CLIENT
    bogus = {"id": "AAAA", "response": {}}
    for _ in range(2):
        assert peer.callback("authenticate", bogus).status == 302
    assert peer.callback("authenticate", bogus).status == 429
    other = PasskeyPeer(peer.browser.another(), peer.db, peer.authenticator)
    other.browser.client = "198.51.100.1"
    assert other.register().status == 302
