"""Nothing half-written, by hypothesis: whichever adapter call of an action on a user's own
sessions or accounts fails, the action answers with an error or succeeds whole; the user's
data (user, accounts, authenticators) is what it was or what the action makes it, and the
user is never left without a way to sign in."""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sansio_auth._flows.own_accounts import ways_in
from tests.sansio_auth.own_site import Site, post_json

ACTIONS = {
    "unlink": ("unlink/op2", {"providerAccountId": "alice-sub"}),
    "unlink the last": ("unlink/op", {}),
    "delete": ("delete-user", {}),
    "end the others": ("revoke-other-sessions", {}),
}


def data(store):
    return (
        {k: dict(v) for k, v in store.users.items()},
        {k: dict(v) for k, v in store.accounts.items()},
        dict(store.authenticators),
    )


def stored_ways(site, store):
    [user] = store.users.values()
    accounts = [a for a in store.accounts.values() if a["user_id"] == user["id"]]
    return ways_in(site.pair.engine.settings, user, accounts)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    strategy=st.sampled_from(["database", "jwt"]),
    action=st.sampled_from(sorted(ACTIONS)),
    failing=st.integers(min_value=1, max_value=8),
    two_ways=st.booleans(),
)
def test_a_failing_adapter_call_leaves_a_whole_state(strategy, action, failing, two_ways):
    site = Site(strategy)
    browser, other = site.browser(), site.browser()
    if two_ways:
        start = browser.post(f"{browser.base}/link/op2", form={"csrfToken": browser.csrf_token()})
        site.op.authorize(start.location, "alice").follow(browser)
    store = site.db.store
    before = data(store)
    route, fields = ACTIONS[action]
    calls = len(site.db.calls)
    for method in ("list_accounts_by_user_id", "unlink_account", "link_account", "delete_user",
                   "list_sessions_by_user_id", "delete_session", "set_sessions_not_before",
                   "list_session_records", "delete_session_record", "get_session_and_user",
                   "get_user"):  # fmt: skip
        site.db.fail_on(method, failing)
    response = post_json(browser, route, **fields)
    site.db.failures.clear()
    event(f"{action}: {response.status}")
    assert len(site.db.calls) > calls
    assert response.status in (200, 401, 404, 409, 500), response
    after = data(store)
    if response.status != 200:
        assert response.json()["error"]
        assert after == before  # nothing of the user's data changed
    if store.users:
        assert stored_ways(site, store), "the user was left without a way in"
    if response.status == 200 and action == "delete":
        assert store.users == {}
        assert other.session() is None
