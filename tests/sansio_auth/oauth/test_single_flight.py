"""Refreshes in single flight across processes (``AuthConfig(single_flight=...)``): two engines
("processes") on one store find a session's access token due at once; the OP sees one refresh,
both get its tokens. A holder that dies, a store that fails, a tampered answer, a late stale
cookie, and the settings.

Found by the cluster soak (``soak/cluster``): without the shared store, two nodes refreshing one
session each sent the refresh token, and the OP revoked the grant.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig, Engine, Flow, Request, Response, jwt
from sansio_auth.errors import Configuration
from sansio_auth.events import Action, CallAdapter, HTTPResponse, Respond, SendHTTP
from sansio_auth.oauth.refresh import open_answer, seal_answer
from sansio_auth.settings import resolve
from sansio_auth.testing import Clock, Performer, seeded_entropy
from tests.sansio_auth.driver import ORIGIN, SECRET, AuthPair, Browser
from tests.sansio_auth.oauth.fake_op import FakeOP, sign_in, start
from tests.sansio_auth.oauth.test_refresh_flow import refresh_requests

SESSION = "authjs.session-token"
DUE = 3600 - 30  # inside the default 60 s refresh skew: the access token is still valid
EXPIRED = 3600 + 1


class Flights:
    """A single-flight store in memory on the test's clock; ``await_refresh`` lets the wait
    pass on that clock (no other process can act meanwhile in a test)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.leases: dict[str, tuple[str, float]] = {}
        self.answers: dict[str, tuple[bytes, float]] = {}
        self.down = False

    def _answer(self, key: str) -> bytes | None:
        kept = self.answers.get(key)
        return kept[0] if kept and kept[1] > self.clock.now else None

    def claim_refresh(self, key: str, owner: str, lease: float) -> tuple[bool, bytes | None]:
        if self.down:
            raise ConnectionError("the store is down")
        answer = self._answer(key)
        if answer is not None:
            return False, answer
        held = self.leases.get(key)
        if held is not None and held[1] > self.clock.now:
            return False, None
        self.leases[key] = (owner, self.clock.now + lease)
        return True, None

    def await_refresh(self, key: str, wait: float) -> bytes | None:
        if self._answer(key) is None:
            self.clock.advance(wait)
        return self._answer(key)

    def finish_refresh(self, key: str, owner: str, answer: bytes | None, keep: float) -> None:
        if answer is None:
            self.answers.pop(key, None)
        else:
            self.answers[key] = (answer, self.clock.now + keep)
        if self.leases.get(key, ("", 0))[0] == owner:
            del self.leases[key]


def process(config: AuthConfig, clock: Clock, op: FakeOP, seed: int) -> AuthPair:
    """One process of the app: an engine and its performer (the OP answers its requests)."""
    engine = Engine(config, clock=clock, entropy=seeded_entropy(seed), env={})
    performer = Performer(op.handle)
    return AuthPair(engine, performer, clock, Browser(engine, performer, clock, ORIGIN))


def fleet(strategy: str) -> tuple[AuthPair, AuthPair, FakeOP, Flights]:
    """Two processes of one app on one store (and one database); a session signed in."""
    clock = Clock()
    op = FakeOP(clock)
    flights = Flights(clock)
    options: dict[str, Any] = {"session": {"strategy": strategy}, "single_flight": flights}
    if strategy == "database":
        options["adapter"] = MemoryAdapter()
    config = AuthConfig(secret=SECRET, trust_host=True, providers=[op.provider()], **options)
    first, second = process(config, clock, op, 1), process(config, clock, op, 2)
    sign_in(first.browser, op)
    return first, second, op, flights


def until(pair: AuthPair, flow: Flow, stop: type, method: str | None = None) -> Action:
    """Drive ``flow`` with ``pair``'s performer up to its first ``stop`` action (with
    ``method``, for an adapter call); that action, not performed."""
    action = flow.next_action()
    while not (
        isinstance(action, stop) and (method is None or getattr(action, "method", "") == method)
    ):
        action = flow.send(pair.performer.perform(action))
    return action


def finish(pair: AuthPair, flow: Flow, event: Any) -> Response:
    action = flow.send(event)
    while not isinstance(action, Respond):
        action = flow.send(pair.performer.perform(action))
    return action.response


def read(pair: AuthPair, browser: Browser, cookie: str | None = None) -> Flow:
    """``GET session`` of ``browser`` (or of ``cookie``) served by ``pair``'s process."""
    if cookie is None:
        return pair.engine.handle(browser.build("GET", "/auth/session"))
    request = Request(
        method="GET", url=f"{ORIGIN}/auth/session", headers={"cookie": f"{SESSION}={cookie}"}
    )
    return pair.engine.handle(request)


def state_of(response: Response, clock: Clock) -> dict[str, Any]:
    [cookie] = [c for c in response.cookies if c.name == SESSION]
    token = jwt.decode(cookie.value, SECRET, SESSION, now=clock.now)
    state: dict[str, Any] = token["oauth"]
    return state


@pytest.mark.parametrize("strategy", ["jwt", "database"])
def test_two_processes_at_expiry_make_one_refresh_and_share_its_tokens(strategy):
    first, second, op, _ = fleet(strategy)
    first.clock.advance(EXPIRED)
    one, other = read(first, first.browser), read(second, first.browser)
    send = until(first, one, SendHTTP)  # the first claimed the refresh: its request is out
    until(second, other, CallAdapter, "await_refresh")  # the second waits for its answer
    answered = finish(first, one, op.handle(send.request))  # type: ignore[attr-defined]
    waited = finish(second, other, second.performer.perform(other.pending))  # type: ignore[arg-type]
    assert len(refresh_requests(op)) == 1
    for response in (answered, waited):
        assert response.status == 200
        assert response.json()["user"]["email"] == "alice@example.com"
        assert "error" not in response.json()
    if strategy == "jwt":  # both re-issue the cookie with the same new tokens
        states = [state_of(response, first.clock) for response in (answered, waited)]
        assert states[0]["refresh_token"] == states[1]["refresh_token"] == "rt-2"
    else:
        [row] = first.engine.settings.adapter.store.accounts.values()
        assert row["refresh_token"] == "rt-2"
    assert "RefreshAccessTokenError" not in first.performer.log_codes("error")
    assert "RefreshAccessTokenError" not in second.performer.log_codes("error")


def test_while_the_access_token_is_valid_the_other_process_does_not_wait():
    first, second, op, _ = fleet("jwt")
    first.clock.advance(DUE)
    one = read(first, first.browser)
    send = until(first, one, SendHTTP)  # the first is refreshing
    second.performer.clear()
    other = second.performer.run(read(second, first.browser))  # at once, its token still good
    assert not [a for a in second.performer.actions if getattr(a, "method", "") == "await_refresh"]
    assert other.json()["user"]["email"] == "alice@example.com"
    assert SESSION not in {c.name for c in other.cookies}  # nothing new to set
    answered = finish(first, one, op.handle(send.request))  # type: ignore[attr-defined]
    assert state_of(answered, first.clock)["refresh_token"] == "rt-2"
    assert len(refresh_requests(op)) == 1


def test_a_stale_cookie_within_the_keep_gets_the_kept_answer_not_a_second_refresh():
    first, second, op, _ = fleet("jwt")
    stale = first.browser.cookies()[SESSION]
    first.clock.advance(DUE)
    first.browser.session()  # refreshed: rt-1 -> rt-2
    first.clock.advance(10)
    response = second.performer.run(read(second, first.browser, stale))  # another process
    assert state_of(response, first.clock)["refresh_token"] == "rt-2"
    assert len(refresh_requests(op)) == 1


def test_when_the_holder_dies_the_next_process_refreshes_once_its_lease_is_over():
    first, second, op, flights = fleet("jwt")
    first.clock.advance(EXPIRED)
    until(first, read(first, first.browser), SendHTTP)  # claimed; the process died: not sent
    response = second.performer.run(read(second, first.browser))
    assert len(refresh_requests(op)) == 1  # the second's own, once the lease ran out
    assert state_of(response, first.clock)["refresh_token"] == "rt-2"
    assert not flights.leases


def test_a_store_that_fails_keeps_the_old_tokens_and_sends_nothing():
    first, _, op, flights = fleet("jwt")
    first.clock.advance(DUE)
    flights.down = True
    session = first.browser.session()
    assert session["user"]["email"] == "alice@example.com"  # the access token is valid 30 s
    assert refresh_requests(op) == []
    assert "AdapterError" in first.performer.log_codes("error")
    flights.down = False
    first.browser.session()
    assert len(refresh_requests(op)) == 1


def test_an_answer_that_does_not_open_is_not_used():
    first, second, op, flights = fleet("jwt")
    first.clock.advance(DUE)
    first.browser.session()
    for key, (answer, expires) in flights.answers.items():
        flights.answers[key] = (answer[:-1] + bytes([answer[-1] ^ 1]), expires)
    stale_flow = read(second, first.browser, first.browser.cookies()[SESSION])
    assert second.performer.run(stale_flow).status == 200
    assert len(refresh_requests(op)) == 1


def test_sealed_answers_open_only_with_their_refresh_token_and_key():
    answer = HTTPResponse(status=200, headers={"content-type": "a/b"}, body=b"\x00tokens")
    sealed = seal_answer("rt-1", "refresh:k", answer, b"n" * 12)
    assert open_answer("rt-1", "refresh:k", sealed) == answer
    assert b"tokens" not in sealed
    assert open_answer("rt-2", "refresh:k", sealed) is None
    assert open_answer("rt-1", "refresh:other", sealed) is None
    assert open_answer("rt-1", "refresh:k", sealed[:5]) is None
    with pytest.raises(ValueError, match="12 bytes"):
        seal_answer("rt-1", "refresh:k", answer, b"short")


def test_the_store_is_the_configured_one_or_the_adapter_when_it_is_one():
    clock = Clock()
    flights = Flights(clock)

    def single_flight(**options: Any) -> Any:
        return resolve(AuthConfig(secret=SECRET, trust_host=True, **options), {}).single_flight

    assert single_flight() is None
    assert single_flight(single_flight=flights) is flights
    assert single_flight(adapter=MemoryAdapter()) is None  # process memory is no shared store

    class Both(MemoryAdapter):
        claim_refresh = flights.claim_refresh
        await_refresh = flights.await_refresh
        finish_refresh = flights.finish_refresh

    adapter = Both()
    assert single_flight(adapter=adapter) is adapter
    with pytest.raises(Configuration, match="`single_flight` has no await_refresh"):
        single_flight(single_flight=type("Half", (), {"claim_refresh": print})())


@pytest.mark.parametrize("strategy", ["jwt", "database"])
def test_a_callback_sent_again_to_another_process_signs_in_with_the_kept_answer(strategy):
    """A node dies after the provider answered its code exchange; the load balancer sends the
    browser's callback again, to another node, which signs the browser in with the kept answer
    (sending the used code again, it would get ``invalid_grant``: the error page)."""
    clock = Clock()
    op = FakeOP(clock)
    options: dict[str, Any] = {"session": {"strategy": strategy}, "single_flight": Flights(clock)}
    if strategy == "database":
        options["adapter"] = MemoryAdapter()
    config = AuthConfig(secret=SECRET, trust_host=True, providers=[op.provider()], **options)
    first, second = process(config, clock, op, 1), process(config, clock, op, 2)
    started = start(first.browser)
    assert started.location is not None
    result = op.authorize(started.location, "alice")
    callback = first.browser.build("GET", f"{result.url}?{urlencode(result.params)}")
    dying = first.engine.handle(callback)
    action = dying.next_action()
    while not (isinstance(action, SendHTTP) and action.request.url == op.endpoint("token")):
        action = dying.send(first.performer.perform(action))
    kept = dying.send(op.handle(action.request))  # the provider answers (the code is used)
    assert isinstance(kept, CallAdapter)
    assert kept.method == "finish_refresh"
    dying.send(first.performer.perform(kept))  # the answer is kept; then the node dies
    again = second.performer.run(second.engine.handle(callback))  # the balancer's retry
    assert again.status == 302
    assert again.location == ORIGIN
    assert SESSION in {c.name for c in again.cookies}
    token_requests = [r for r in op.requests if r.url == op.endpoint("token")]
    assert len(token_requests) == 1
    replayed = second.performer.run(second.engine.handle(callback))  # once more, signed in:
    assert "error=" in (replayed.location or "")  # the answer is spent, the code refused
    assert len([r for r in op.requests if r.url == op.endpoint("token")]) == 2


def test_a_sign_in_goes_on_while_the_store_is_down():
    """A code is taken once by the provider anyway: without the store, it is sent as it is."""
    first, _, op, flights = fleet("jwt")
    flights.down = True
    browser = first.browser.another()
    response = sign_in(browser, op)
    assert response.status == 302
    assert browser.session()["user"]["email"] == "alice@example.com"
    assert "AdapterError" in first.performer.log_codes("error")
