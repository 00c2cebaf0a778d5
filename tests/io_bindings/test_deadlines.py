"""Deadlines in the runtimes (``io_bindings.anyio.Auth`` on asyncio and trio, and the sync
runtime): slow callbacks and adapters, the whole sign-in's deadline, what can be
interrupted and what fails late."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from io_bindings._deadlines import CUT, within
from io_bindings.anyio import Auth
from io_bindings.db.memory import MemoryAdapter
from io_bindings.db.sqlite import SQLiteAdapter
from io_bindings.sync import SyncAuth
from sansio_auth import AuthConfig, Request, Response
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.providers import Credentials, Email

SECRET = "deadline-tests-secret-that-is-long-enough-01"
ORIGIN = "http://app.test"
ERROR_PAGE = f"{ORIGIN}/auth/error?error=Configuration"


async def slow(seconds: float) -> None:
    await anyio.sleep(seconds)


def config(authorize: Any, **options: Any) -> AuthConfig:
    options.setdefault("providers", [Credentials(authorize=authorize)])
    return AuthConfig(secret=SECRET, trust_host=True, **options)


def sign_in_request(csrf: Response, **form: str) -> Request:
    """``POST callback/credentials`` with the CSRF token and cookie of ``csrf``."""
    token = csrf.json()["csrfToken"]
    cookie = "; ".join(f"{c.name}={c.value}" for c in csrf.cookies)
    body = "&".join(f"{k}={v}" for k, v in {"csrfToken": token, **form}.items())
    return Request(
        method="POST",
        url=f"{ORIGIN}/auth/callback/credentials",
        headers={"content-type": "application/x-www-form-urlencoded", "cookie": cookie},
        body=body.encode(),
    )


CSRF = Request(method="GET", url=f"{ORIGIN}/auth/csrf")


async def sign_in(auth: Auth, **form: str) -> tuple[Response, float]:
    csrf = await auth.respond(CSRF)
    assert csrf is not None
    started = anyio.current_time()
    answer = await auth.respond(sign_in_request(csrf, **form))
    assert answer is not None
    return answer, anyio.current_time() - started


def sync_sign_in(auth: SyncAuth, **form: str) -> tuple[Response, float]:
    csrf = auth.respond(CSRF)
    assert csrf is not None
    started = time.monotonic()
    answer = auth.respond(sign_in_request(csrf, **form))
    assert answer is not None
    return answer, time.monotonic() - started


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(logging.ERROR, logger="sansio_auth"):
        yield caplog


@pytest.mark.anyio
async def test_an_async_callback_is_cut_at_its_deadline(logged: pytest.LogCaptureFixture) -> None:
    async def authorize(credentials: dict[str, Any]) -> dict[str, Any]:
        await slow(30)
        return {"id": "1"}

    auth = Auth(config(authorize, deadlines={"callback": 0.2}), env={})
    answer, took = await sign_in(auth)
    assert answer.location == ERROR_PAGE
    assert took < 1.5
    assert "DeadlineExceeded: callback authorize did not answer within 0.2 s" in logged.text


@pytest.mark.anyio
async def test_a_sync_callback_that_overruns_fails_when_it_returns() -> None:
    def authorize(credentials: dict[str, Any]) -> dict[str, Any]:
        time.sleep(0.4)
        return {"id": "1"}

    auth = Auth(config(authorize, deadlines={"callback": 0.1}), env={})
    answer, took = await sign_in(auth)
    assert answer.location == ERROR_PAGE
    assert took >= 0.4


@pytest.mark.anyio
async def test_the_whole_sign_in_has_its_own_deadline(logged: pytest.LogCaptureFixture) -> None:
    """Each callback is within its own deadline (5 s); together they are over the sign-in's."""

    async def authorize(credentials: dict[str, Any]) -> dict[str, Any]:
        await slow(0.3)
        return {"id": "1"}

    async def sign_in_callback(user: Any) -> bool:
        await slow(3)
        return True

    options = {"deadlines": {"callback": 5, "sign_in": 0.6}}
    auth = Auth(config(authorize, callbacks={"sign_in": sign_in_callback}, **options), env={})
    answer, took = await sign_in(auth)
    assert answer.location == ERROR_PAGE
    assert 0.5 <= took < 2
    assert "callback sign_in ran out of the sign-in's time" in logged.text


@pytest.mark.anyio
async def test_with_no_deadlines_a_slow_callback_is_waited_for() -> None:
    async def authorize(credentials: dict[str, Any]) -> dict[str, Any]:
        await slow(0.3)
        return {"id": "1"}

    off = {"callback": None, "adapter": None, "sign_in": None}
    auth = Auth(config(authorize, deadlines=off), env={})
    answer, took = await sign_in(auth)
    assert answer.location == f"{ORIGIN}"
    assert took >= 0.3


class SlowAdapter(MemoryAdapter):
    async def get_user_by_email(self, email: str) -> Any:
        await slow(30)


def email_config(adapter: Any, **options: Any) -> AuthConfig:
    sent: list[str] = []
    email = Email(send_verification_request=lambda identifier: sent.append(identifier))
    return config(None, adapter=adapter, providers=[email], **options)


def email_request(csrf: Response) -> Request:
    request = sign_in_request(csrf, email="ada@example.com")
    return Request(
        method="POST",
        url=f"{ORIGIN}/auth/signin/email",
        headers=request.headers,
        body=request.body,
    )


@pytest.mark.anyio
async def test_an_async_adapter_call_is_cut_at_its_deadline(
    logged: pytest.LogCaptureFixture,
) -> None:
    auth = Auth(email_config(SlowAdapter(), deadlines={"adapter": 0.2}), env={})
    csrf = await auth.respond(CSRF)
    assert csrf is not None
    with anyio.fail_after(2):
        answer = await auth.respond(email_request(csrf))
    assert answer is not None
    assert answer.location == ERROR_PAGE
    assert "adapter_get_user_by_email did not answer within 0.2 s" in logged.text


@pytest.mark.anyio
async def test_a_store_write_stuck_on_a_lock_is_abandoned(tmp_path: Path) -> None:
    """SQLite's write lock held elsewhere: the request ends at the adapter deadline; the
    abandoned write lands, whole, once the lock is free (a dead token row, nothing half)."""
    path = tmp_path / "auth.db"
    async with SQLiteAdapter(path) as adapter:
        auth = Auth(email_config(adapter, deadlines={"adapter": 0.3}), env={})
        csrf = await auth.respond(CSRF)
        assert csrf is not None
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        started = anyio.current_time()
        answer = await auth.respond(email_request(csrf))
        assert answer is not None
        assert answer.location == ERROR_PAGE
        assert anyio.current_time() - started < 2
        blocker.execute("COMMIT")
        blocker.close()
        for _ in range(250):
            if tokens(path):
                break
            await anyio.sleep(0.02)
        assert len(tokens(path)) == 1


def tokens(path: Path) -> list[Any]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT identifier FROM verification_tokens").fetchall()


# -- the sync runtime (WSGI) -------------------------------------------------------------------


def test_sync_runtime_cuts_an_async_callback_on_its_background_loop() -> None:
    async def authorize(credentials: dict[str, Any]) -> dict[str, Any]:
        await slow(30)
        return {"id": "1"}

    auth = SyncAuth(config(authorize, deadlines={"callback": 0.2}), env={})
    answer, took = sync_sign_in(auth)
    assert answer.location == ERROR_PAGE
    assert took < 1.5


def test_sync_runtime_fails_an_overrunning_sync_callback_when_it_returns() -> None:
    def authorize(credentials: dict[str, Any]) -> dict[str, Any]:
        time.sleep(0.3)
        return {"id": "1"}

    auth = SyncAuth(config(authorize, deadlines={"callback": 0.1}), env={})
    answer, took = sync_sign_in(auth)
    assert answer.location == ERROR_PAGE
    assert took >= 0.3


class SlowCounters:
    """A sync rate-limit store that takes 0.4 s (a sync call cannot be cut)."""

    def increment_counter(self, key: str, window: int, now: Any) -> tuple[int, Any]:
        time.sleep(0.4)
        return 1, now


def test_sync_runtime_keeps_the_whole_sign_in_deadline() -> None:
    """The counters' call is within its own deadline (5 s) but uses up the sign-in's (0.3 s):
    ``authorize`` is never called, the sign-in fails at once."""
    called: list[str] = []

    def authorize(credentials: dict[str, Any]) -> dict[str, Any]:
        called.append("authorize")
        return {"id": "1"}

    limits = {"store": SlowCounters()}
    options = {"deadlines": {"adapter": 5, "sign_in": 0.3}, "rate_limits": limits}
    auth = SyncAuth(config(authorize, **options), env={})
    answer, took = sync_sign_in(auth, username="ada")
    assert answer.location == ERROR_PAGE
    assert called == []
    assert not [c for c in answer.cookies if "session-token" in c.name]
    assert took < 1


def test_sync_runtime_cuts_an_async_adapter_call() -> None:
    auth = SyncAuth(email_config(SlowAdapter(), deadlines={"adapter": 0.2}), env={})
    csrf = auth.respond(CSRF)
    assert csrf is not None
    started = time.monotonic()
    answer = auth.respond(email_request(csrf))
    assert answer is not None
    assert answer.location == ERROR_PAGE
    assert time.monotonic() - started < 1.5


# -- within: the one primitive ------------------------------------------------------------------


@pytest.mark.anyio
async def test_within_answers_what_finishes_in_time_and_cuts_the_rest() -> None:
    async def at_once() -> str:
        return "now"

    async def later(seconds: float) -> str:
        with anyio.move_on_after(60):  # a scope of its own, entered before it suspends
            await anyio.sleep(seconds)
        return "later"

    async def fails() -> None:
        raise TimeoutError("its own timeout, not ours")

    assert await within(at_once(), 0.1) == "now"
    assert await within(later(0.01), 1) == "later"
    started = anyio.current_time()
    assert await within(later(30), 0.1) is CUT
    assert anyio.current_time() - started < 1
    with pytest.raises(TimeoutError, match="its own"):
        await within(fails(), 1)
    assert await within(later(0.01), 1) == "later"  # the task is not left cancelled


@pytest.mark.anyio
async def test_within_leaves_an_outer_cancellation_alone() -> None:
    async def sleeps() -> None:
        await anyio.sleep(30)

    with anyio.move_on_after(0.1) as outer:
        await within(sleeps(), 10)
    assert outer.cancelled_caught


class SlowProvider:
    """A transport answering as the test OP, but ``endpoint`` after ``seconds``."""

    def __init__(self, op: Any, endpoint: str, seconds: float) -> None:
        self.op, self.endpoint, self.seconds = op, endpoint, seconds

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        if request.url.endswith(self.endpoint):
            await slow(self.seconds)
        return self.op.handle(request)  # type: ignore[no-any-return]


@pytest.mark.parametrize("endpoint", ["/.well-known/openid-configuration", "/token"])
def test_a_provider_request_past_the_sign_ins_deadline_is_deadline_exceeded(
    endpoint: str, logged: pytest.LogCaptureFixture
) -> None:
    """The whole sign-in's deadline (0.4 s) cuts a provider request that takes 5 s: the log
    says ``DeadlineExceeded``, not the callback route's error."""
    from tests.sansio_auth.driver import Browser, Clock
    from tests.sansio_auth.oauth.fake_op import FakeOP
    from tests.sansio_auth.oauth.fake_op import sign_in as oidc_sign_in

    clock = Clock()
    op = FakeOP(clock)
    options = {"deadlines": {"sign_in": 0.4}, "providers": [op.provider()]}
    slow_op = SlowProvider(op, endpoint, 5)
    auth = Auth(config(None, **options), transport=slow_op, clock=clock, env={})

    class Driven:
        def run(self, flow: Any) -> Response:
            return anyio.run(auth.drive, flow)

    browser = Browser(auth.engine, Driven(), clock, ORIGIN)
    started = time.monotonic()
    if endpoint == "/token":
        answer = oidc_sign_in(browser, op)
    else:
        form = {"csrfToken": browser.csrf_token()}
        answer = browser.post(f"{browser.base}/signin/op", form=form)
    assert time.monotonic() - started < 3
    assert answer.location == ERROR_PAGE
    assert "DeadlineExceeded: " in logged.text
    assert "ran out of the sign-in's time" in logged.text
    assert "CallbackRouteError" not in logged.text
    assert browser.session() is None
