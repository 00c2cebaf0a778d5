"""A JWT session whose user was deleted, with revocation off (the default: the cookie still
reads as a session until it expires): the account routes refuse it as signed out, and a
user made after the deletion is not reached through it. With a Credentials provider a
token's user need not be stored, so there it stays a session of a user with no account."""

from __future__ import annotations

from typing import Any

from tests.sansio_auth.driver import ORIGIN, Browser, query_of
from tests.sansio_auth.own_site import SESSION, Site, post_form, post_json

JSON = {"accept": "application/json"}


def deleted_alice_and_bob() -> tuple[Site, Browser, Browser]:
    """Alice signed in twice, then deleted from one browser; Bob signed up after."""
    site = Site("jwt", session={"revocation": False}, two_factor={"providers": "all"})
    alice, stale = site.browser(), site.browser()
    assert post_form(alice, "delete-user").location == ORIGIN
    assert stale.session() is not None  # revocation off: the cookie still reads as a session
    bob = site.browser("bob")
    return site, stale, bob


def bob_untouched(site: Site, bob: Browser) -> None:
    [user] = site.db.store.users.values()
    assert user["email"] == "bob@example.com"
    assert site.db.store.two_factors == {}
    assert bob.get(f"{bob.base}/two-factor-setup", headers=JSON).json()["uri"]


def refused(response: Any, *, json: bool) -> None:
    if json:
        assert (response.status, response.json()["error"]) == (401, "SessionRequired")
    else:
        assert response.status == 302, response
        assert query_of(response.location).get("error", "SessionRequired") == "SessionRequired"
        assert response.location.startswith(f"{ORIGIN}/auth/signin")


def test_the_account_routes_refuse_the_session_of_a_deleted_user() -> None:
    site, stale, bob = deleted_alice_and_bob()
    refused(stale.get(f"{stale.base}/two-factor-setup"), json=False)
    refused(stale.get(f"{stale.base}/two-factor-setup", headers=JSON), json=True)
    refused(post_json(stale, "two-factor-setup", action="enable", code="123456"), json=True)
    refused(stale.get(f"{stale.base}/security"), json=False)
    refused(stale.get(f"{stale.base}/sessions"), json=True)
    refused(stale.get(f"{stale.base}/accounts"), json=True)
    refused(post_json(stale, "delete-user"), json=True)
    refused(post_form(stale, "delete-user"), json=False)
    assert site.emitted("delete_user")[1:] == []  # Alice's own deletion only
    bob_untouched(site, bob)
    assert SESSION in stale.cookies()  # a plain JWT session read is Auth.js's: unchanged
