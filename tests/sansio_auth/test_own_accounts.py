"""A user's own accounts through the engine, on database and revocable JWT sessions: listed,
linked explicitly (CSRF, a session that must still be the user's at the callback), unlinked
(never the last way in; a fresh sign-in first), the user deleted with everything of theirs;
each refusal changes nothing."""

from __future__ import annotations

import pytest

from sansio_auth import jwt
from tests.sansio_auth.adapter_faults import rows
from tests.sansio_auth.driver import ORIGIN, SECRET, query_of
from tests.sansio_auth.oauth.fake_op import sign_in
from tests.sansio_auth.own_site import (
    SESSION,
    STRATEGIES,
    Site,
    accounts_of,
    post_form,
    post_json,
    sessions_of,
)

DAY = 86400


def link(site, browser, provider="op2", user="alice", **form):
    """``POST link/<provider>`` from the security page, then the OP's login as ``user``."""
    start = post_form(browser, f"link/{provider}", **form)
    assert start.status == 302, start
    assert start.location is not None
    assert site.op.is_authorize(start.location), start.location
    return site.op.authorize(start.location, user).follow(browser)


def summary(accounts):
    return [(a["provider"], a["providerAccountId"], a["canUnlink"]) for a in accounts]


@STRATEGIES
def test_listing_the_accounts(strategy):
    site = Site(strategy)
    browser = site.browser()
    assert accounts_of(browser) == [
        {
            "provider": "op",
            "providerName": "Memory OP",
            "type": "oidc",
            "providerAccountId": "alice-sub",
            "canUnlink": False,  # the only way in
        }
    ]


@STRATEGIES
def test_linking_another_provider_keeps_the_session(strategy):
    site = Site(strategy)
    browser = site.browser()
    before = browser.cookies()[SESSION]
    [session] = sessions_of(browser)
    response = link(site, browser)
    assert response.status == 302
    assert response.location == f"{ORIGIN}/auth/security"
    assert summary(accounts_of(browser)) == [
        ("op", "alice-sub", True),
        ("op2", "alice-sub", True),
    ]
    [event] = site.emitted("link_account")[-1:]
    assert event["account"]["provider"] == "op2"
    assert [s["id"] for s in sessions_of(browser)] == [session["id"]]  # the same session
    assert sessions_of(browser)[0]["createdAt"] == session["createdAt"]  # not made fresh
    if strategy == "database":
        assert browser.cookies()[SESSION] == before
    assert "authjs.link-account" not in browser.cookies()


def test_linking_goes_back_to_the_callback_url():
    site = Site("database")
    browser = site.browser()
    response = link(site, browser, callbackUrl="/settings")
    assert response.location == f"{ORIGIN}/settings"


@STRATEGIES
def test_a_link_whose_session_ended_on_the_way_is_refused(strategy):
    site = Site(strategy)
    browser = site.browser()
    start = post_form(browser, "link/op2")
    browser.sign_out()  # signed out while at the provider
    state = rows(site.db.store)
    response = site.op.authorize(start.location, "alice").follow(browser)
    assert response.location == f"{ORIGIN}/auth/signin?error=SessionRequired"
    assert rows(site.db.store)[:2] == state[:2]  # no user made, nothing linked
    assert SESSION not in browser.cookies()


@STRATEGIES
def test_a_link_of_an_account_that_is_someone_elses_is_refused(strategy):
    site = Site(strategy)
    site.browser("bob", provider="op2")  # Bob signed up with op2
    alice = site.browser()
    response = link(site, alice, user="bob")  # Alice's browser, Bob at op2
    assert response.location == f"{ORIGIN}/auth/signin?error=OAuthAccountNotLinked"
    assert summary(accounts_of(alice)) == [("op", "alice-sub", False)]


@STRATEGIES
def test_link_needs_a_session_and_the_csrf_token(strategy):
    site = Site(strategy)
    signed_out = site.browser(None)
    response = post_form(signed_out, "link/op2")
    assert query_of(response.location)["error"] == "SessionRequired"
    browser = site.browser()
    forged = browser.post(f"{browser.base}/link/op2", form={"csrfToken": "nope"})
    assert forged.location == f"{ORIGIN}/auth/security?error=MissingCSRF"
    unknown = post_json(browser, "link/nowhere")
    assert (unknown.status, unknown.json()["error"]) == (404, "RecordNotFound")


def test_an_abandoned_link_does_not_bind_a_later_sign_in():
    site = Site("database")
    browser = site.browser()
    post_form(browser, "link/op2")  # abandoned at the provider
    browser.sign_out()
    response = site.sign_in(browser, "bob")  # a plain sign-in with op: another provider
    assert response.location == f"{ORIGIN}/auth/security"  # the callback URL remembered
    assert browser.session()["user"]["email"] == "bob@example.com"
    assert len(site.db.store.accounts) == 2  # Alice's and Bob's op accounts, nothing linked


@STRATEGIES
def test_unlinking_an_account(strategy):
    site = Site(strategy)
    browser = site.browser()
    link(site, browser)
    response = post_form(browser, "unlink/op2", providerAccountId="alice-sub")
    assert response.location == f"{ORIGIN}/auth/security"
    assert summary(accounts_of(browser)) == [("op", "alice-sub", False)]
    [event] = site.emitted("unlink_account")
    assert event["account"]["provider"] == "op2"
    assert event["user"]["email"] == "alice@example.com"
    # the account is no longer Alice's: signing in with it is refused (her address is taken)
    again = sign_in(site.pair.new_browser(), site.op, "op2")
    assert again.location == f"{ORIGIN}/auth/signin?error=OAuthAccountNotLinked"


@STRATEGIES
def test_the_last_way_in_is_never_unlinked(strategy):
    site = Site(strategy)
    browser = site.browser()
    state = rows(site.db.store)
    response = post_json(browser, "unlink/op", providerAccountId="alice-sub")
    assert (response.status, response.json()["error"]) == (409, "LastSignInMethod")
    form = post_form(browser, "unlink/op")
    assert form.location == f"{ORIGIN}/auth/security?error=LastSignInMethod"
    assert rows(site.db.store) == state
    assert site.emitted("unlink_account") == []


def test_an_address_with_an_email_provider_is_a_way_in():
    site = Site("database", email=True)
    browser = site.browser()
    assert summary(accounts_of(browser)) == [("op", "alice-sub", True)]
    response = post_json(browser, "unlink/op")
    assert (response.status, response.json()) == (
        200,
        {"provider": "op", "providerAccountId": "alice-sub"},
    )
    assert accounts_of(browser) == []


@STRATEGIES
def test_unlinking_needs_a_fresh_sign_in(strategy):
    site = Site(strategy, session={"fresh_age": 600, "update_age": 0})
    browser = site.browser()
    link(site, browser)
    site.clock.advance(601)
    stale = post_json(browser, "unlink/op2")
    assert (stale.status, stale.json()["error"]) == (403, "SessionNotFresh")
    form = post_form(browser, "unlink/op2")
    assert query_of(form.location) == {
        "callbackUrl": f"{ORIGIN}/auth/security",
        "error": "SessionNotFresh",
    }
    assert len(accounts_of(browser)) == 2
    assert site.sign_in(browser).status == 302  # signing in again: a fresh session
    assert post_json(browser, "unlink/op2").status == 200
    assert len(accounts_of(browser)) == 1


def test_a_session_without_a_sign_in_time_is_not_fresh():
    site = Site("jwt")
    browser = site.browser()
    token = jwt.decode(browser.cookies()[SESSION], SECRET, SESSION, now=site.clock.now)
    del token["auth_time"]  # a session issued before sign-in times were kept
    for claim in ("iat", "exp", "jti"):
        token.pop(claim)
    old = jwt.encode(token, (SECRET,), SESSION, now=site.clock.now, entropy=lambda n: b"1" * n)
    browser.jar[SESSION].value = old
    response = post_json(browser, "delete-user")
    assert response.json()["error"] == "SessionNotFresh"


def test_fresh_age_zero_turns_the_check_off():
    site = Site("database", email=True, session={"fresh_age": 0})
    browser = site.browser()
    site.clock.advance(365 * DAY)
    site.sign_in(browser)  # the session is a year old, but alive thanks to reads
    site.clock.advance(20 * DAY)
    assert post_json(browser, "unlink/op").status == 200


@STRATEGIES
def test_an_account_of_another_user_cannot_be_unlinked(strategy):
    site = Site(strategy, email=True)
    site.browser("bob", provider="op2")
    alice = site.browser()
    response = post_json(alice, "unlink/op2", providerAccountId="bob-sub")
    assert (response.status, response.json()["error"]) == (404, "RecordNotFound")
    assert len(site.db.store.accounts) == 2


@STRATEGIES
def test_deleting_the_user_removes_everything_and_ends_every_session(strategy):
    site = Site(strategy)
    browser, other = site.browser(), site.browser()
    link(site, browser)
    bob = site.browser("bob")
    response = post_form(browser, "delete-user")
    assert response.location == ORIGIN
    assert SESSION not in browser.cookies()
    assert other.session() is None  # the other browser is signed out too
    assert bob.session() is not None
    store = site.db.store
    assert [u["email"] for u in store.users.values()] == ["bob@example.com"]
    assert [a["provider_account_id"] for a in store.accounts.values()] == ["bob-sub"]
    owners = {s["user_id"] for s in (*store.sessions.values(), *store.session_records.values())}
    assert owners <= {next(iter(store.users))}
    [event] = site.emitted("delete_user")
    assert event["user"]["email"] == "alice@example.com"
    assert site.sign_in(site.pair.new_browser()).location == ORIGIN  # alice may sign up anew


@STRATEGIES
def test_a_failed_delete_leaves_the_user_whole(strategy):
    site = Site(strategy)
    browser = site.browser()
    state = rows(site.db.store)
    site.db.fail_on("delete_user")
    response = post_json(browser, "delete-user")
    assert response.status == 500
    assert rows(site.db.store)[:2] == state[:2]  # the user and the account are there
    assert site.emitted("delete_user") == []


def test_deleting_needs_the_adapters_delete_user():
    site = Site("database", hide={"delete_user"})
    browser = site.browser()
    response = post_json(browser, "delete-user")
    assert response.status == 500
    assert len(site.db.store.users) == 1


@pytest.mark.parametrize("route", ["unlink/op", "delete-user"])
def test_sensitive_routes_refuse_a_signed_out_browser(route):
    site = Site("database")
    response = post_json(site.browser(None), route)
    assert (response.status, response.json()["error"]) == (401, "SessionRequired")


def test_a_credentials_user_who_is_not_stored_can_end_sessions_and_delete():
    from io_bindings.db.memory import MemoryAdapter
    from sansio_auth.providers import Credentials
    from tests.sansio_auth.driver import AuthPair, users

    adapter = MemoryAdapter()
    pair = AuthPair.build(
        adapter=adapter,
        session={"strategy": "jwt", "revocation": True},
        providers=[Credentials(authorize=users({"id": "7", "username": "ann", "password": "pw"}))],
    )
    first, second = pair.browser, pair.new_browser()
    for browser in (first, second):
        browser.sign_in_with_credentials(username="ann", password="pw")
    assert len(sessions_of(first)) == 2
    assert accounts_of(first) == []
    assert post_json(first, "revoke-other-sessions").json() == {"revoked": 1}
    assert second.session() is None
    assert post_json(first, "delete-user").json() == {"deleted": "7"}
    assert adapter.store.session_records == {}
    assert first.session() is None
