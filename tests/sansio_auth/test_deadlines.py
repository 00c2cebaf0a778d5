"""Deadlines in the engine: which flows carry one, and what a binding's timeout
(``Failed(TimeoutError)``) becomes for a callback, an adapter call and a provider request."""

from __future__ import annotations

from typing import Any

import pytest

from sansio_auth import AuthConfig, Engine, Flow, Request
from sansio_auth.config import Deadlines
from sansio_auth.errors import ActionTimeout, Configuration, DeadlineExceeded
from sansio_auth.events import Action, CallAdapter, Event, Failed, InvokeCallback
from sansio_auth.providers import Credentials, Email
from sansio_auth.testing import SECRET, Browser, Clock, Performer, seeded_entropy
from tests.sansio_auth.adapter_faults import FaultyAdapter, seed_session, seed_user
from tests.sansio_auth.oauth.fake_op import FakeOP, build, sign_in

ORIGIN = "http://localhost:3000"


def engine(**options: Any) -> Engine:
    options.setdefault("providers", [Credentials(authorize=lambda credentials: {"id": "1"})])
    config = AuthConfig(secret=SECRET, trust_host=True, **options)
    return Engine(config, clock=Clock(), entropy=seeded_entropy(0), env={})


def flow(e: Engine, method: str, path: str) -> Flow:
    handled = e.handle(Request(method=method, url=ORIGIN + path))
    assert isinstance(handled, Flow)
    return handled


def test_sign_in_flows_carry_the_sign_in_deadline() -> None:
    e = engine(deadlines={"sign_in": 12.5})
    for method, path in (
        ("POST", "/auth/signin/credentials"),
        ("POST", "/auth/callback/credentials"),
        ("GET", "/auth/callback/github"),
        ("GET", "/auth/signin"),
        ("POST", "/auth/signup"),
        ("POST", "/auth/two-factor"),
    ):
        assert flow(e, method, path).deadline == 12.5
    for method, path in (
        ("GET", "/auth/session"),
        ("GET", "/auth/csrf"),
        ("POST", "/auth/signout"),
    ):
        assert flow(e, method, path).deadline is None
    assert flow(engine(deadlines={"sign_in": None}), "POST", "/auth/signin/x").deadline is None


def test_the_defaults() -> None:
    assert engine().settings.deadlines == Deadlines(callback=10.0, adapter=15.0, sign_in=45.0)


@pytest.mark.parametrize("bad", [0, -1, "5", True])
def test_a_deadline_must_be_a_positive_number(bad: object) -> None:
    with pytest.raises(Configuration, match=r"deadlines\.adapter"):
        engine(deadlines={"adapter": bad})


class TimesOut(Performer):
    """Answers the first action ``matches`` picks with a binding's ``TimeoutError``."""

    def __init__(self, matches: Any) -> None:
        super().__init__()
        self.matches = matches

    def perform(self, action: Action) -> Event:
        if self.matches(action):
            self.matches = lambda action: False
            self.actions.append(action)
            return Failed(error=TimeoutError("it did not answer within 0.1 s"))
        return super().perform(action)


def browser(performer: Performer, **options: Any) -> Browser:
    e = engine(**options)
    return Browser.on(e, e._clock, performer=performer)  # type: ignore[arg-type]


def logged_deadline(performer: Performer) -> DeadlineExceeded:
    [entry] = [log for log in performer.logs if log.code == "DeadlineExceeded"]
    assert isinstance(entry.error, DeadlineExceeded)
    return entry.error


def test_a_callback_that_times_out_ends_on_the_error_page() -> None:
    performer = TimesOut(lambda a: isinstance(a, InvokeCallback) and a.name == "authorize")
    peer = browser(performer)
    form = {"csrfToken": peer.csrf_token(), "username": "ada"}
    answer = peer.post("/auth/callback/credentials", form=form)
    assert answer.status == 302
    assert answer.location == f"{ORIGIN}/auth/error?error=Configuration"
    error = logged_deadline(performer)
    assert error.fault == "callback"
    assert error.cause["callback"] == "authorize"
    assert "did not answer within 0.1 s" in str(error)
    assert peer.session() is None


def test_a_sign_in_callback_that_times_out_is_not_an_access_denied() -> None:
    performer = TimesOut(lambda a: isinstance(a, InvokeCallback) and a.name == "sign_in")
    peer = browser(performer, callbacks={"sign_in": lambda user: True})
    form = {"csrfToken": peer.csrf_token(), "username": "ada"}
    answer = peer.post("/auth/callback/credentials", form=form)
    assert answer.location == f"{ORIGIN}/auth/error?error=Configuration"
    assert logged_deadline(performer).fault == "callback"


def test_an_adapter_call_that_times_out_ends_on_the_error_page() -> None:
    db = FaultyAdapter()
    performer = TimesOut(lambda a: isinstance(a, CallAdapter) and a.method == "get_user_by_email")
    sent: list[str] = []
    peer = browser(
        performer,
        adapter=db,
        providers=[Email(send_verification_request=lambda identifier: sent.append(identifier))],
    )
    form = {"csrfToken": peer.csrf_token(), "email": "ada@example.com"}
    answer = peer.post("/auth/signin/email", form=form)
    assert answer.location == f"{ORIGIN}/auth/error?error=Configuration"
    error = logged_deadline(performer)
    assert (error.fault, error.cause["method"]) == ("adapter", "get_user_by_email")
    assert sent == []
    assert db.called("create_verification_token") == []


def test_a_session_read_that_times_out_is_null_and_keeps_the_cookie() -> None:
    db = FaultyAdapter()
    performer = TimesOut(
        lambda a: isinstance(a, CallAdapter) and a.method == "get_session_and_user"
    )
    peer = browser(performer, adapter=db, providers=[])
    seed_user(db.store, "u1", "ada@example.com")
    seed_session(db.store, "t1", "u1", peer.clock.now + 3600)
    answer = peer.get("/auth/session", headers={"cookie": "authjs.session-token=t1"})
    assert answer.status == 200
    assert answer.json() is None
    assert answer.cookies == ()  # a hiccup keeps the cookie for the next read
    assert "SessionTokenError" in performer.log_codes("error")


def cut_at(op: Any, endpoint: str, error: BaseException) -> Any:
    """``op``'s answers, but ``endpoint``'s request fails with ``error``."""

    def handle(request: Any) -> Any:
        if request.url.endswith(endpoint):
            raise error
        return op.handle(request)

    return handle


DISCOVERY = "/.well-known/openid-configuration"


@pytest.mark.parametrize(
    ("endpoint", "id_token"), [(DISCOVERY, True), ("/token", True), ("/userinfo", False)]
)
def test_a_provider_request_cut_by_the_deadline_is_deadline_exceeded(
    endpoint: str, id_token: bool
) -> None:
    op = FakeOP()
    pair = build(op, id_token=id_token)
    sent = "the request to the provider ran out of the sign-in's time"
    pair.performer.http = cut_at(op, endpoint, ActionTimeout(sent))
    if endpoint == DISCOVERY:  # the sign-in's start
        form = {"csrfToken": pair.browser.csrf_token()}
        response = pair.browser.post(f"{pair.browser.base}/signin/op", form=form)
    else:  # its callback
        response = sign_in(pair.browser, op)
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"
    errors = [log for log in pair.performer.logs if log.level == "error"]
    assert [log.code for log in errors] == ["DeadlineExceeded"]
    error = errors[0].error
    assert isinstance(error, DeadlineExceeded)
    assert error.fault == "provider"
    assert error.cause["url"].endswith(endpoint)
    assert sent in str(error)
    assert pair.browser.session() is None


def test_the_transports_own_timeout_stays_a_provider_failure() -> None:
    """A plain ``TimeoutError`` from the transport (its own timeout) is no deadline."""
    op = FakeOP()
    pair = build(op)
    pair.performer.http = cut_at(op, "/token", TimeoutError("read timed out"))
    response = sign_in(pair.browser, op)
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"
    [log] = [log for log in pair.performer.logs if log.level == "error"]
    assert log.code == "CallbackRouteError"
