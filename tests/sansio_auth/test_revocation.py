"""Revocable sessions through the engine: JWT sessions refused after a revocation of their
user or sid (cached briefly, this engine's own revocations seen at once), database sessions
deleted, and the configuration errors."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from io_bindings.db.memory import MemoryAdapter
from sansio_auth import Engine, jwt
from sansio_auth._flows.revocation import revoked_by
from sansio_auth.errors import MissingAdapter
from sansio_auth.testing import Performer, seeded_entropy
from sansio_auth.testing.performer import step as run_sync
from tests.sansio_auth.adapter_faults import FaultyAdapter
from tests.sansio_auth.driver import SECRET, AuthPair
from tests.sansio_auth.oauth.fake_op import FakeOP, build, sign_in

SESSION = "authjs.session-token"


def revoke(pair: AuthPair, **who: Any) -> Any:
    response = pair.performer.run(pair.engine.revoke_sessions(**who))
    return response.status, response.json()


def jwt_pair(adapter: MemoryAdapter, **session: Any) -> tuple[AuthPair, FakeOP]:
    op = FakeOP()
    options = {"adapter": adapter, "session": {"strategy": "jwt", "revocation": True, **session}}
    pair = build(op, config=options)
    sign_in(pair.browser, op)
    return pair, op


def token_of(pair: AuthPair, browser: Any = None) -> dict[str, Any]:
    jar = (browser or pair.browser).cookies()
    return jwt.decode(jar[SESSION], SECRET, SESSION, now=pair.clock.now)


@pytest.mark.parametrize("by", ["user_id", "sid"])
def test_a_revoked_jwt_session_is_refused(by):
    adapter = MemoryAdapter()
    pair, op = jwt_pair(adapter)
    token = token_of(pair)
    assert isinstance(token["sid"], str)
    assert pair.browser.session() is not None
    other = pair.new_browser()
    sign_in(other, op)  # a second session of the same user
    pair.clock.advance(1)
    who = {"user_id": token["sub"]} if by == "user_id" else {"sid": token["sid"]}
    assert revoke(pair, **who) == (200, {"deleted": 0})
    assert pair.browser.session() is None
    assert SESSION not in pair.browser.cookies()  # the cookie is deleted
    assert (other.session() is None) is (by == "user_id")  # a sid ends that session only
    pair.clock.advance(1)
    sign_in(pair.browser, op)  # signing in again works
    assert pair.browser.session() is not None


def test_the_check_is_cached_and_another_process_revocation_lands_within_the_ttl():
    adapter = MemoryAdapter()
    pair, _ = jwt_pair(adapter, revocation_cache_ttl=5)
    pair.browser.session()
    pair.performer.clear()
    pair.browser.session()
    assert [
        a for a in pair.performer.actions if getattr(a, "method", "") == "get_sessions_not_before"
    ] == []
    pair.clock.advance(1)
    sub = token_of(pair)["sub"]
    run_sync(adapter.set_sessions_not_before(f"user:{sub}", _utc(pair.clock.now)))  # elsewhere
    assert pair.browser.session() is not None  # the cached answer, for up to 5 s
    pair.clock.advance(5)
    assert pair.browser.session() is None


def test_a_revocation_store_that_fails_keeps_the_cookie_for_when_it_answers_again():
    """Redis down under a fleet: the JWT session is refused (fail closed) while the marks
    cannot be read, and is back afterwards; its cookie is never deleted for that."""
    adapter = FaultyAdapter()
    pair, _ = jwt_pair(adapter, revocation_cache_ttl=0)  # type: ignore[arg-type]
    cookie = pair.browser.cookies()[SESSION]
    adapter.fail_on("get_sessions_not_before")
    response = pair.browser.get("/auth/session")
    assert response.status == 200
    assert response.json() is None
    assert SESSION not in {c.name for c in response.cookies}  # neither set nor deleted
    assert "JWTSessionError" in pair.performer.log_codes("error")
    assert pair.browser.cookies()[SESSION] == cookie
    assert pair.browser.session()["user"]["email"] == "alice@example.com"


@pytest.mark.parametrize(
    ("claims", "mark", "revoked"),
    [
        ({"iat": 30, "auth_time": 10}, 10, True),  # a mark at its sign-in ends it
        ({"iat": 30, "auth_time": 10}, 9.999, False),  # one before does not
        ({"iat": 30, "auth_time": 10}, 25, True),  # re-issued: still judged by its sign-in
        ({"iat": 30}, 30, True),  # Auth.js's token: by when it was issued
        ({"auth_time": 10, "kept_at": 20.5}, 20.5, False),  # the revocation that kept it
        ({"auth_time": 10, "kept_at": 20.5}, 20.501, True),  # any later one
        ({"auth_time": 10}, 0, False),  # no mark
        ({}, 99, False),  # no time to judge by
    ],
)
def test_a_revocation_ends_what_signed_in_before_it_and_a_kept_session_only_later(
    claims, mark, revoked
):
    assert revoked_by(claims, mark) is revoked


@given(
    signed_in=st.integers(min_value=1, max_value=2_000_000_000),
    kept_after=st.floats(min_value=0, max_value=10_000, allow_nan=False),
    later_ms=st.integers(min_value=1, max_value=10_000_000),
)
def test_a_kept_session_survives_its_revocation_and_no_later_one(
    signed_in: int, kept_after: float, later_ms: int
) -> None:
    """Whatever the times: a revocation ends every session signed in up to it, keeps the one
    it re-issued with its own time, and a revocation a millisecond later or more ends that
    one too."""
    mark = round(signed_in + kept_after, 3)
    other = {"auth_time": signed_in}
    kept = {"auth_time": signed_in, "kept_at": mark}
    assert revoked_by(other, mark)
    assert not revoked_by(kept, mark)
    assert revoked_by(kept, round(mark + later_ms / 1000, 3))


def test_a_sign_in_while_the_revocation_store_fails_signs_the_browser_in_afresh():
    """A browser whose session reads ``null`` (its marks cannot be read) signs in again: the
    callback treats it as signed out too, instead of failing on the check (found by the
    cluster soak: every such sign-in ended on the error page while Redis was down)."""
    adapter = FaultyAdapter()
    pair, op = jwt_pair(adapter, revocation_cache_ttl=0)  # type: ignore[arg-type]
    before = token_of(pair)
    adapter.fail_on("get_sessions_not_before")
    response = sign_in(pair.browser, op)
    assert "error" not in (response.location or "")
    assert "AdapterError" in pair.performer.log_codes("error")
    after = token_of(pair)
    assert after["sub"] == before["sub"]
    assert after["sid"] != before["sid"]  # a new session
    assert pair.browser.session()["user"]["email"] == "alice@example.com"


def test_a_token_re_issued_by_a_process_that_has_not_seen_the_revocation_stays_revoked():
    """Another process cached "not revoked" just before the revocation, and re-issues the
    cookie (``update_age=0``: every read) in its cache window: the new token is refused once
    the cache runs out, as the old one (found by the cluster soak: a session signed out
    everywhere came back)."""
    adapter = MemoryAdapter()
    pair, _ = jwt_pair(adapter, revocation_cache_ttl=5, update_age=0)
    other = Engine(pair.engine.settings.config, clock=pair.clock, entropy=seeded_entropy(9), env={})
    elsewhere = Performer(pair.performer.http)

    def read_elsewhere() -> Any:
        response = elsewhere.run(other.handle(pair.browser.build("GET", "/auth/session")))
        pair.browser.store(response)
        return response.json()

    assert read_elsewhere() is not None  # the other process caches "not revoked"
    pair.clock.advance(1)
    assert revoke(pair, user_id=token_of(pair)["sub"]) == (200, {"deleted": 0})
    pair.clock.advance(1)
    before = pair.browser.cookies()[SESSION]
    assert read_elsewhere() is not None  # its cache is still good: it re-issues the cookie
    assert pair.browser.cookies()[SESSION] != before
    assert token_of(pair)["iat"] == int(pair.clock.now)  # issued after the revocation
    pair.clock.advance(5)  # the other process's cache runs out
    assert read_elsewhere() is None
    assert pair.browser.session() is None


def test_database_sessions_are_deleted():
    adapter = MemoryAdapter()
    op = FakeOP()
    pair = build(op, config={"adapter": adapter})
    sign_in(pair.browser, op)
    other = pair.new_browser()
    sign_in(other, op)
    [user] = adapter.store.users.values()
    assert revoke(pair, user_id=user["id"]) == (200, {"deleted": 2})
    assert pair.browser.session() is None
    assert other.session() is None


def test_revocation_needs_an_adapter_and_the_option():
    with pytest.raises(MissingAdapter):
        AuthPair.build(session={"revocation": True}, providers=[FakeOP().provider()])
    op = FakeOP()
    pair = build(op, config={"adapter": MemoryAdapter(), "session": {"strategy": "jwt"}})
    status, body = revoke(pair, user_id="u")
    assert status == 500
    assert "revocation" in body["message"]
    assert "Configuration" in pair.performer.log_codes("error")
    status, body = revoke(pair)
    assert status == 500
    assert "user_id or a sid" in body["message"]
    database = build(FakeOP(), config={"adapter": MemoryAdapter()})
    assert revoke(database, sid="s")[0] == 500


def test_without_the_option_tokens_have_no_sid_and_no_check():
    adapter = MemoryAdapter()
    op = FakeOP()
    pair = build(op, config={"adapter": adapter, "session": {"strategy": "jwt"}})
    sign_in(pair.browser, op)
    assert "sid" not in token_of(pair)
    pair.performer.clear()
    pair.browser.session()
    assert not [
        a for a in pair.performer.actions if getattr(a, "method", "").endswith("not_before")
    ]


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def test_marks_are_made_to_expire_once_every_token_they_cover_has():
    """A mark covers tokens signed in before it; those expire ``jwt.max_age`` after their last
    issue (and the decoder's 15 s), and a process that has not seen the mark yet may re-issue
    one for ``revocation_cache_ttl``: the store may forget the mark from then on, and the store
    stays small."""
    adapter = MemoryAdapter()
    pair, _ = jwt_pair(adapter, max_age=3600, revocation_cache_ttl=7)
    token = token_of(pair)
    pair.performer.clear()
    revoke(pair, user_id=token["sub"])
    [call] = [
        a for a in pair.performer.actions if getattr(a, "method", "") == "set_sessions_not_before"
    ]
    key, not_before, expires = call.args
    assert key == f"user:{token['sub']}"
    assert expires.timestamp() - not_before.timestamp() == 3600 + jwt.CLOCK_TOLERANCE + 7
    reissued_unseen = not_before.timestamp() + 7 + 3600  # the latest expiry of a covered token
    assert reissued_unseen <= expires.timestamp() - jwt.CLOCK_TOLERANCE  # dead then
    pair.clock.advance(3600 + jwt.CLOCK_TOLERANCE + 7)
    revoke(pair, user_id="someone-else")  # a later mark: the first one is forgotten
    assert f"user:{token['sub']}" not in adapter.store.not_before
    assert pair.browser.session() is None  # the old token has expired anyway
