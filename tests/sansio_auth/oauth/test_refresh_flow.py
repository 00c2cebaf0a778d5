"""Refresh-token rotation through the engine against the in-memory OP: JWT and database
sessions, rotation with and without a new refresh token, refusal, transport failure,
and the compare-and-swap race between two processes."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

import pytest

from io_bindings.db.memory import MemoryAdapter
from sansio_auth import Request, jwt
from sansio_auth.events import HTTPResponse, Respond, SendHTTP
from sansio_auth.testing.performer import step as run_sync
from tests.sansio_auth.driver import ORIGIN, SECRET, AuthPair, written
from tests.sansio_auth.oauth.fake_op import FakeOP, build, sign_in
from tests.sansio_auth.oauth.test_oauth_flow import oauth_options

SESSION = "authjs.session-token"


def session_token(pair: AuthPair) -> dict[str, Any]:
    return jwt.decode(pair.browser.cookies()[SESSION], SECRET, SESSION, now=pair.clock.now)


def refresh_requests(op: FakeOP) -> list[dict[str, str]]:
    forms = [dict(parse_qsl(r.body.decode())) for r in op.requests if r.url == op.endpoint("token")]
    return [f for f in forms if f.get("grant_type") == "refresh_token"]


def signed_in(op: FakeOP, **options: Any) -> AuthPair:
    pair = build(op, **options)
    response = sign_in(pair.browser, op)
    assert response.status == 302, response
    return pair


def access_token(pair: AuthPair, provider: str = "op") -> str | None:
    request = pair.browser.build("GET", f"{pair.browser.base}/session")
    response = pair.performer.run(pair.engine.access_token(request, provider))
    pair.browser.store(response)
    assert response.status == 200
    token = response.token
    assert token is None or isinstance(token, str)
    return token


# -- JWT sessions ------------------------------------------------------------------------------


def test_a_jwt_session_keeps_the_provider_tokens():
    op = FakeOP()
    pair = signed_in(op)
    state = session_token(pair)["oauth"]
    assert state == {
        "provider": "op",
        "access_token": "at-1-alice",
        "refresh_token": "rt-1",
        "expires_at": int(pair.clock.now) + 3600,
        "sub": "alice-sub",  # what a refreshed ID token must keep
    }
    assert access_token(pair) == "at-1-alice"


def test_no_refresh_before_the_skew():
    op = FakeOP()
    pair = signed_in(op, refresh_skew=120)
    pair.clock.advance(3600 - 121)
    pair.browser.session()
    assert refresh_requests(op) == []


@pytest.mark.parametrize("rotate", [True, False])
def test_jwt_refresh_within_the_skew(rotate):
    op = FakeOP(rotate_refresh_tokens=rotate)
    seen: list[Any] = []
    refreshed: list[Any] = []
    config = {
        "callbacks": {
            "jwt": lambda token, trigger, account: seen.append((trigger, account)) or token
        },
        "events": {"token_refreshed": lambda account, token: refreshed.append(account)},
    }
    pair = signed_in(op, config=config)
    seen.clear()
    pair.clock.advance(3600 - 30)  # inside the default 60 s skew
    response = pair.browser.get("/auth/session")
    assert SESSION in written(response)  # the cookie is re-issued with the new tokens
    [form] = refresh_requests(op)
    assert form == {"grant_type": "refresh_token", "refresh_token": "rt-1"}
    state = session_token(pair)["oauth"]
    assert state["access_token"] == "at-2-alice"
    assert state["refresh_token"] == ("rt-2" if rotate else "rt-1")  # kept when none comes
    assert state["expires_at"] == int(pair.clock.now) + 3600
    [(trigger, account)] = seen
    assert trigger == "refresh"
    assert account["access_token"] == "at-2-alice"
    assert [a["access_token"] for a in refreshed] == ["at-2-alice"]
    assert "error" not in response.json()
    pair.browser.session()  # fresh again: no second request
    assert len(refresh_requests(op)) == 1
    assert access_token(pair) == "at-2-alice"


def test_a_refused_refresh_marks_the_session_and_never_loops():
    op = FakeOP()
    sessions: list[Any] = []
    config = {"callbacks": {"session": lambda session: sessions.append(session) or session}}
    pair = signed_in(op, config=config)
    op.refresh_tokens.clear()  # the OP revoked the grant
    pair.clock.advance(3600 - 10)
    assert "error" not in pair.browser.session()  # the access token still works 10 s
    assert "RefreshAccessTokenError" in pair.performer.log_codes("error")
    pair.clock.advance(20)
    session = pair.browser.session()
    assert session["error"] == "RefreshAccessTokenError"
    assert sessions[-1]["error"] == "RefreshAccessTokenError"  # the callback sees it
    assert len(refresh_requests(op)) == 1  # asked once, never again
    assert access_token(pair) is None


@pytest.mark.parametrize("failure", ["timeout", "500"])
def test_a_transport_failure_keeps_the_old_tokens(failure):
    op = FakeOP()
    pair = signed_in(op)
    op.fail["token"] = failure
    pair.clock.advance(3600 - 30)
    session = pair.browser.session()
    assert "error" not in session
    assert session_token(pair)["oauth"]["refresh_token"] == "rt-1"
    assert access_token(pair) == "at-1-alice"  # valid for 30 s more
    del op.fail["token"]
    pair.browser.session()  # the next read tries again
    assert session_token(pair)["oauth"]["access_token"].startswith("at-")
    assert session_token(pair)["oauth"]["refresh_token"] == "rt-2"


@pytest.mark.parametrize("refresh", [None, True])
def test_oauth_providers_refresh_only_when_asked(refresh):
    op = FakeOP()
    pair = signed_in(op, **oauth_options(op, refresh=refresh))
    assert ("oauth" in session_token(pair)) is bool(refresh)
    pair.clock.advance(3600)
    pair.browser.session()
    assert len(refresh_requests(op)) == (1 if refresh else 0)


def test_the_refresh_request_carries_a_single_flight_key_without_the_token():
    op = FakeOP()
    pair = signed_in(op)
    pair.clock.advance(3600)
    pair.performer.clear()
    pair.browser.session()
    [send] = [
        a
        for a in pair.performer.actions
        if isinstance(a, SendHTTP) and a.request.url == op.endpoint("token")
    ]
    assert send.single_flight is not None
    assert send.single_flight.startswith("refresh:")
    assert "rt-1" not in send.single_flight


# -- database sessions -------------------------------------------------------------------------


def db_pair(op: FakeOP, adapter: MemoryAdapter | None = None) -> AuthPair:
    return signed_in(op, config={"adapter": adapter or MemoryAdapter()})


def account_row(adapter: MemoryAdapter) -> dict[str, Any]:
    [row] = adapter.store.accounts.values()
    return row


def test_database_refresh_updates_the_account_row():
    adapter = MemoryAdapter()
    op = FakeOP()
    pair = db_pair(op, adapter)
    pair.clock.advance(3600 - 30)
    assert "error" not in pair.browser.session()
    row = account_row(adapter)
    assert (row["access_token"], row["refresh_token"]) == ("at-2-alice", "rt-2")
    assert row["expires_at"] == int(pair.clock.now) + 3600
    assert access_token(pair) == "at-2-alice"
    assert len(refresh_requests(op)) == 1


def test_database_refused_refresh():
    adapter = MemoryAdapter()
    op = FakeOP()
    pair = db_pair(op, adapter)
    op.refresh_tokens.clear()
    pair.clock.advance(3600)
    assert pair.browser.session()["error"] == "RefreshAccessTokenError"
    assert account_row(adapter)["refresh_token"] == ""
    pair.browser.session()
    assert len(refresh_requests(op)) == 1


def test_a_returning_sign_in_replaces_a_dead_refresh_token_of_the_account():
    """The provider revoked the grant (the user logged out there): the account's refresh
    token is refused. Signing in again stores the new sign-in's tokens on the account, so the
    user's sessions refresh again (found by the cluster soak: such an account never did)."""
    adapter = MemoryAdapter()
    op = FakeOP()
    pair = db_pair(op, adapter)
    op.refresh_tokens.clear()  # the OP revoked the grant
    pair.clock.advance(3600 + 1)
    assert pair.browser.session()["error"] == "RefreshAccessTokenError"
    assert account_row(adapter)["refresh_token"] == ""
    again = pair.new_browser()
    sign_in(again, op)
    row = account_row(adapter)
    assert row["refresh_token"] == "rt-2"  # the new sign-in's
    assert row["expires_at"] == int(pair.clock.now) + 3600
    assert "error" not in pair.browser.session()  # the first browser's session too
    assert access_token(pair) == row["access_token"]
    pair.clock.advance(3600 - 30)
    assert "error" not in again.session()  # and it refreshes
    assert account_row(adapter)["refresh_token"] == "rt-3"


def test_a_returning_sign_in_with_jwt_sessions_writes_no_tokens():
    adapter = MemoryAdapter()
    op = FakeOP()
    pair = signed_in(op, config={"adapter": adapter, "session": {"strategy": "jwt"}})
    before = dict(account_row(adapter))
    sign_in(pair.new_browser(), op)
    assert account_row(adapter) == before


def _run_until_refresh(pair: AuthPair, op: FakeOP):
    """Start a session read and drive it to its refresh request (not answered yet)."""
    flow = pair.engine.handle(pair.browser.build("GET", "/auth/session"))
    action = flow.next_action()
    while not (isinstance(action, SendHTTP) and action.single_flight):
        action = flow.send(pair.performer.perform(action))
    return flow, action


def _finish(pair: AuthPair, flow, event):
    action = flow.send(event)
    while True:
        if isinstance(action, Respond):
            return action.response
        action = flow.send(pair.performer.perform(action))


@pytest.mark.parametrize("loser_answer", ["refused", "also-new-tokens"])
def test_database_race_between_processes_the_loser_re_reads_the_row(loser_answer):
    adapter = MemoryAdapter()
    op = FakeOP()
    pair = db_pair(op, adapter)
    other = AuthPair(pair.engine, pair.performer, pair.clock, pair.browser)  # another process
    pair.clock.advance(3600)
    flow, send = _run_until_refresh(pair, op)  # process A reads rt-1, is about to refresh
    other.browser.session()  # process B refreshes first: rt-1 -> rt-2 stored
    assert account_row(adapter)["refresh_token"] == "rt-2"
    if loser_answer == "refused":
        event = op.handle(send.request)  # rt-1 was rotated away: invalid_grant
        assert event.status == 400
    else:
        event = HTTPResponse(
            status=200,
            headers={"content-type": "application/json"},
            body=b'{"access_token": "at-x", "token_type": "Bearer", "expires_in": 60,'
            b' "refresh_token": "rt-x"}',
        )
    response = _finish(pair, flow, event)
    assert response.status == 200
    assert "error" not in response.json()  # A did not fail: it re-read B's row
    row = account_row(adapter)
    assert (row["access_token"], row["refresh_token"]) == ("at-2-alice", "rt-2")


def test_access_token_when_signed_out_or_unknown_provider():
    op = FakeOP()
    pair = signed_in(op)
    assert access_token(pair, "github") is None
    pair.browser.jar.clear()
    assert access_token(pair) is None
    request = Request(method="GET", url=f"{ORIGIN}/auth/session")
    assert pair.performer.run(pair.engine.access_token(request, "op")).token is None


def test_the_adapter_sees_only_token_keys():
    adapter = MemoryAdapter()
    with pytest.raises(ValueError, match="token keys only"):
        run_sync(adapter.update_account_tokens("op", "x", None, {"user_id": "mallory"}))  # type: ignore[typeddict-unknown-key]
