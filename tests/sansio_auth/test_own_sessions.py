"""A user's own sessions through the engine, on database and revocable JWT sessions: listed
(this browser marked), one ended, all the others ended; refusals (signed out, no CSRF token,
a session that is not the user's) change nothing; JWT session records are registered once,
touched once per ``update_age``, dropped at sign-out and at a revocation."""

from __future__ import annotations

from urllib.parse import urlencode

import msgspec
import pytest

from sansio_auth.http import iso_date
from tests.sansio_auth.driver import ORIGIN, query_of
from tests.sansio_auth.own_site import (
    SESSION,
    STRATEGIES,
    Site,
    current_id,
    post_form,
    post_json,
    sessions_of,
)

DAY = 86400


@STRATEGIES
def test_the_list_shows_each_live_session_and_marks_this_one(strategy):
    site = Site(strategy)
    first = site.browser()
    site.clock.advance(60)
    second = site.browser()
    listed = sessions_of(first)
    assert [s["current"] for s in listed] == [True, False]
    assert {s["id"] for s in listed} == {current_id(first), current_id(second)}
    mine = listed[0]
    assert mine["createdAt"] == iso_date(site.clock.now - 60)
    assert mine["lastSeenAt"] == iso_date(site.clock.now - 60)
    assert mine["expires"] == iso_date(site.clock.now - 60 + 30 * DAY)
    assert mine["userAgent"] is None  # the kit's browser sends none
    assert mine["ipAddress"] is None
    assert sessions_of(site.browser("bob")) != listed  # Bob sees only his own
    assert len(sessions_of(site.browser("bob"))) == 2


@STRATEGIES
def test_the_user_agent_is_kept(strategy):
    site = Site(strategy)
    browser = site.pair.new_browser()
    agent = "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0"
    start = browser.post(f"{browser.base}/signin/op", form={"csrfToken": browser.csrf_token()})
    result = site.op.authorize(start.location, "alice")
    callback = f"{result.url}?{urlencode(result.params)}"
    browser.get(callback, headers={"user-agent": agent, "cookie": browser.cookie_header()})
    assert [s["userAgent"] for s in sessions_of(browser)] == [agent]


def test_database_session_ids_do_not_reveal_the_token():
    site = Site("database")
    browser = site.browser()
    token = browser.cookies()[SESSION]
    [listed] = sessions_of(browser)
    assert token not in str(listed)
    assert len(listed["id"]) == 32


@STRATEGIES
def test_ending_another_session(strategy):
    site = Site(strategy)
    mine, other, third = site.browser(), site.browser(), site.browser()
    site.clock.advance(1)
    response = post_form(mine, "revoke-session", id=current_id(other))
    assert response.status == 302
    assert response.location == f"{ORIGIN}/auth/security"
    assert other.session() is None
    assert SESSION not in other.cookies()
    assert mine.session() is not None
    assert third.session() is not None
    assert len(sessions_of(mine)) == 2
    [event] = site.emitted("revoke_sessions")
    assert event["user"]["email"] == "alice@example.com"
    assert len(event["session_ids"]) == 1


@STRATEGIES
def test_ending_every_other_session(strategy):
    site = Site(strategy)
    mine, *others = (site.browser() for _ in range(3))
    bobs = site.browser("bob")
    site.clock.advance(1)
    response = post_json(mine, "revoke-other-sessions")
    assert (response.status, response.json()) == (200, {"revoked": 2})
    assert all(browser.session() is None for browser in others)
    assert mine.session() is not None
    assert bobs.session() is not None  # another user's sessions are not "others"
    assert [s["current"] for s in sessions_of(mine)] == [True]
    assert post_json(mine, "revoke-other-sessions").json() == {"revoked": 0}


@STRATEGIES
def test_ending_this_session_signs_out(strategy):
    site = Site(strategy)
    browser = site.browser()
    site.clock.advance(1)
    response = post_json(browser, "revoke-session", id=current_id(browser))
    assert (response.status, response.json()) == (200, {"revoked": 1})
    assert SESSION not in browser.cookies()
    assert browser.session() is None


@STRATEGIES
def test_a_session_of_someone_else_or_none_is_refused_and_nothing_ends(strategy):
    site = Site(strategy)
    alice, bob = site.browser(), site.browser("bob")
    bobs_id = current_id(bob)
    site.clock.advance(1)
    for session_id in (bobs_id, "no-such-session", ""):
        response = post_json(alice, "revoke-session", id=session_id)
        assert response.status == 404
        assert response.json()["error"] == "RecordNotFound"
    assert bob.session() is not None
    form = post_form(alice, "revoke-session", id=bobs_id)
    assert form.location == f"{ORIGIN}/auth/security?error=RecordNotFound"
    assert site.emitted("revoke_sessions") == []


@STRATEGIES
def test_without_the_csrf_token_nothing_ends(strategy):
    site = Site(strategy)
    mine, other = site.browser(), site.browser()
    target = current_id(other)
    json = mine.post(f"{mine.base}/revoke-session", json={"id": target})
    assert (json.status, json.json()["error"]) == (403, "MissingCSRF")
    form = mine.post(f"{mine.base}/revoke-other-sessions", form={"csrfToken": "forged"})
    assert form.location == f"{ORIGIN}/auth/security?error=MissingCSRF"
    assert other.session() is not None


@STRATEGIES
def test_signed_out_gets_401_or_the_sign_in_page(strategy):
    site = Site(strategy)
    browser = site.browser(None)
    listed = browser.get(f"{browser.base}/sessions")
    assert (listed.status, listed.json()["error"]) == (401, "SessionRequired")
    form = post_form(browser, "revoke-other-sessions")
    assert form.location is not None
    assert form.location.startswith(f"{ORIGIN}/auth/signin?")
    assert query_of(form.location) == {
        "callbackUrl": f"{ORIGIN}/auth/security",
        "error": "SessionRequired",
    }


def test_a_jwt_session_is_recorded_once_and_touched_when_its_cookie_is_reissued():
    site = Site("jwt", session={"update_age": DAY}, provider={"refresh": False})
    browser = site.browser()
    assert len(site.db.called("create_session_record")) == 1
    for _ in range(5):
        site.clock.advance(DAY / 10)
        browser.session()
    assert site.db.called("touch_session_record") == []  # plain reads write nothing
    site.clock.advance(DAY / 2)
    browser.session()
    browser.session()
    assert len(site.db.called("touch_session_record")) == 1
    assert sessions_of(browser)[0]["lastSeenAt"] == iso_date(site.clock.now)


def test_database_last_seen_moves_with_the_expiry():
    site = Site("database", session={"update_age": DAY})
    browser = site.browser()
    signed_in = site.clock.now
    site.clock.advance(DAY + 5)
    browser.session()
    [listed] = sessions_of(browser)
    assert listed["createdAt"] == iso_date(signed_in)
    assert listed["lastSeenAt"] == iso_date(site.clock.now)


def test_jwt_records_go_at_sign_out_and_when_a_sign_in_replaces_the_session():
    site = Site("jwt")
    browser = site.browser()
    site.clock.advance(1)
    site.sign_in(browser)  # signing in again: a new session, the old record goes
    assert len(site.db.store.session_records) == 1
    browser.sign_out()
    assert site.db.store.session_records == {}


def test_sign_out_everywhere_forgets_the_jwt_records():
    site = Site("jwt")
    first, second = site.browser(), site.browser()
    user_id = first.session() and site.db.store.session_records
    assert len(user_id) == 2
    sub = next(iter(site.db.store.session_records.values()))["user_id"]
    site.clock.advance(1)
    response = site.pair.performer.run(site.pair.engine.revoke_sessions(user_id=sub))
    assert response.status == 200
    assert site.db.store.session_records == {}
    assert first.session() is None
    assert second.session() is None


def test_a_sign_in_whose_record_cannot_be_kept_fails_without_a_session():
    site = Site("jwt")
    site.db.fail_on("create_session_record")
    browser = site.pair.new_browser()
    response = site.sign_in(browser)
    assert response.location is not None
    assert "error=" in response.location
    assert SESSION not in browser.cookies()
    assert site.db.store.session_records == {}


def test_a_failed_touch_keeps_the_session():
    site = Site("jwt", session={"update_age": 0})
    browser = site.browser()
    site.clock.advance(1)
    site.db.fail_on("touch_session_record")
    assert browser.session() is not None


def test_jwt_sessions_without_revocation_cannot_be_listed_or_ended_and_say_why():
    site = Site("jwt", session={"revocation": False})
    browser, other = site.browser(), site.browser()
    refusal = {
        "error": "RevocationRequired",
        "message": "listing and ending JWT sessions needs session={'revocation': True}",
    }
    for response in (
        browser.get(f"{browser.base}/sessions"),
        post_json(browser, "revoke-other-sessions"),
        post_json(browser, "revoke-session", id="anything"),
    ):
        assert (response.status, response.json()) == (409, refusal)
    page = browser.get(f"{browser.base}/security")
    assert page.status == 200
    assert "Signed in as alice@example.com" in page.body.decode()
    assert "Delete my account" in page.body.decode()
    assert "revoke-session" not in page.body.decode()  # no list, so no button that would fail
    assert browser.session() is not None
    assert other.session() is not None


@pytest.mark.parametrize("route", ["sessions", "accounts", "security"])
def test_a_get_only_route_refuses_post(route):
    site = Site("database")
    browser = site.browser()
    response = post_form(browser, route)
    assert response.location is not None
    assert "error=" in response.location


@pytest.mark.parametrize(
    ("tracked", "proxies", "expected"),
    [(True, 0, "203.0.113.9"), (False, 0, None), (True, 1, "198.51.100.7")],
)
def test_the_client_address_is_kept_only_when_tracked(tracked, proxies, expected):
    """The address kept is the one the rate limits count: the peer's, or behind trusted
    proxies the ``X-Forwarded-For`` entry they added."""
    site = Site(
        "jwt",
        session={"track_ip_address": tracked},
        rate_limits={"trusted_proxies": proxies},
    )
    browser = site.pair.new_browser()
    start = browser.post(f"{browser.base}/signin/op", form={"csrfToken": browser.csrf_token()})
    result = site.op.authorize(start.location, "alice")
    plain = browser.build(
        "GET",
        f"{result.url}?{urlencode(result.params)}",
        headers={"x-forwarded-for": "192.0.2.1, 198.51.100.7"},
    )
    browser.send(msgspec.structs.replace(plain, client="203.0.113.9"))
    [listed] = sessions_of(browser)
    assert listed["ipAddress"] == expected
