"""The fresh sign-in rule, one rule for every sensitive operation (``freshness.SENSITIVE``):
changing the password or the address, setting up (or replacing) and turning off two-factor,
linking and unlinking an account and deleting the user each refuse a session signed in longer
ago than ``session.fresh_age``
(the sign-in page again, or ``403 SessionNotFresh``) and write nothing; after a new sign-in
they go through, the password and code checks still asked on top. A password change keeps
this browser signed in as fresh as it was, and ends the others (their records too)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

from sansio_auth._flows.freshness import SENSITIVE
from sansio_auth.testing import MemoryOP
from tests.sansio_auth.accounts_peer import Accounts, build, code_for, sign_in, sign_up, verify
from tests.sansio_auth.driver import Browser, query_of
from tests.sansio_auth.oauth.fake_op import FakeOP
from tests.sansio_auth.oauth.fake_op import sign_in as op_sign_in

ANN, PW = "ann@example.com", "correct horse battery"
FRESH = 600
JSON = {"accept": "application/json"}
STRATEGIES = pytest.mark.parametrize("strategy", ["database", "jwt"])


class Site(NamedTuple):
    accounts: Accounts
    op: MemoryOP
    uri: str
    """Ann's authenticator app."""

    @property
    def browser(self) -> Browser:
        return self.accounts.browser

    def sign_in_again(self) -> None:
        response = op_sign_in(self.browser, self.op, "op", user="ann")
        assert response.status == 302, response


def ann_everywhere(strategy: str) -> Site:
    """Ann: a password, an authenticator app, and an OpenID Connect account; signed in with
    her password, ``FRESH + 1`` seconds ago."""
    op = FakeOP()
    op.users["ann"] = {"sub": "ann-sub", "name": "Ann", "email": ANN, "email_verified": True}
    session: dict[str, Any] = {"fresh_age": FRESH}
    if strategy == "jwt":
        session["revocation"] = True
    accounts = build(
        strategy=strategy,
        session=session,
        providers=[op.provider()],
        two_factor={"trust_device_days": 0},
    )
    op.connect(accounts.pair)
    b = accounts.browser
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    assert sign_in(accounts, ANN, PW).status == 302
    uri = b.get(f"{accounts.base}/two-factor-setup", headers=JSON).json()["uri"]
    enabled = b.post(
        f"{accounts.base}/two-factor-setup",
        form={"csrfToken": b.csrf_token(), "action": "enable", "code": code_for(uri, b.clock.now)},
    )
    assert enabled.status == 200
    assert op_sign_in(b, op, "op", user="ann").status == 302  # linked (a sign-in while signed in)
    assert [a["provider"] for a in accounts.adapter.store.accounts.values()] == ["op"]
    b.advance(FRESH + 1)
    return Site(accounts, op, uri)


def post(site: Site, route: str, *, json: bool, **fields: str) -> Any:
    b = site.browser
    body = {"csrfToken": b.csrf_token(), **fields}
    if json:
        return b.post(f"{site.accounts.base}/{route}", json=body)
    return b.post(f"{site.accounts.base}/{route}", form=body)


class Operation(NamedTuple):
    route: str
    right: Callable[[Site], dict[str, str]]
    """The fields that make it go through on a fresh session."""
    wrong: dict[str, str] | None
    """Fields its own check refuses even on a fresh session (the password, the code)."""
    done: Callable[[Accounts], bool]


def _ann_id(accounts: Accounts) -> str | None:
    return accounts.adapter.store.user_by_email.get(ANN)


def _replacement(site: Site) -> dict[str, str]:
    """Replacing Ann's app: a code of the new one (its set-up page is open only to a fresh
    session) and one of her current app."""
    b = site.browser
    page = b.get(f"{site.accounts.base}/two-factor-setup?action=replace", headers=JSON)
    new = code_for(page.json()["uri"], b.clock.now) if page.status == 200 else "123456"
    return {"action": "enable", "code": new, "current_code": code_for(site.uri, b.clock.now)}


OPERATIONS = {
    "change-password": Operation(
        "change-password",
        lambda site: {"current_password": PW, "new_password": "a brand new one"},
        {"current_password": "not my password", "new_password": "a brand new one"},
        lambda a: a.adapter.store.passwords[str(_ann_id(a))] != PASSWORDS[id(a)],
    ),
    "change-email": Operation(
        "change-email",
        lambda site: {"email": "new@example.com", "password": PW},
        {"email": "new@example.com", "password": "not my password"},
        lambda a: any(m.kind == "change-email" for m in a.outbox.sent),
    ),
    "enable-two-factor": Operation(
        "two-factor-setup",
        _replacement,
        {"action": "enable", "code": "000000", "current_code": "000000"},
        lambda a: a.adapter.store.two_factors != TWO_FACTORS[id(a)],
    ),
    "link-account": Operation(
        "link/op",
        lambda site: {},
        None,
        lambda a: "authjs.link-account" in a.browser.cookies(),
    ),
    "disable-two-factor": Operation(
        "two-factor-setup",
        lambda site: {"action": "disable", "code": code_for(site.uri, site.browser.clock.now)},
        {"action": "disable", "code": "000000"},
        lambda a: a.adapter.store.two_factors == {},
    ),
    "unlink-account": Operation(
        "unlink/op",
        lambda site: {"providerAccountId": "ann-sub"},
        None,
        lambda a: a.adapter.store.accounts == {},
    ),
    "delete-user": Operation("delete-user", lambda site: {}, None, lambda a: _ann_id(a) is None),
}
PASSWORDS: dict[int, str] = {}
TWO_FACTORS: dict[int, Any] = {}


def stored(accounts: Accounts) -> dict[str, Any]:
    """Everything the memory store holds (its rate-limit counters too: a refused operation
    counts no attempt)."""
    store = accounts.adapter.store
    kept = {k: v for k, v in vars(store).items() if k not in ("_lock", "counters")}
    return copy.deepcopy({**kept, "counters": store.counters._counters})


def test_every_sensitive_operation_is_covered() -> None:
    assert set(OPERATIONS) == SENSITIVE


@STRATEGIES
@pytest.mark.parametrize("json", [False, True], ids=["form", "json"])
@pytest.mark.parametrize("name", sorted(SENSITIVE))
def test_a_stale_session_is_sent_to_sign_in_again_and_nothing_changes(
    strategy: str, json: bool, name: str
) -> None:
    site = ann_everywhere(strategy)
    accounts, operation = site.accounts, OPERATIONS[name]
    PASSWORDS[id(accounts)] = accounts.adapter.store.passwords[str(_ann_id(accounts))]
    TWO_FACTORS[id(accounts)] = copy.deepcopy(accounts.adapter.store.two_factors)
    before = stored(accounts)
    sent = len(accounts.outbox.sent)
    refused = post(site, operation.route, json=json, **operation.right(site))
    if json:
        assert refused.status == 403
        assert refused.json()["error"] == "SessionNotFresh"
    else:
        assert refused.status == 302
        assert refused.location.startswith(f"{site.browser.origin}{accounts.base}/signin?")
        assert query_of(refused.location)["error"] == "SessionNotFresh"
    assert stored(accounts) == before
    assert len(accounts.outbox.sent) == sent
    assert site.browser.session() is not None  # still signed in: only not fresh

    site.sign_in_again()
    if operation.wrong is not None:  # the operation's own check stays
        assert post(site, operation.route, json=json, **operation.wrong).status == 400
        assert stored(accounts)["two_factors"] == before["two_factors"]
        assert stored(accounts)["passwords"] == before["passwords"]
    done = post(site, operation.route, json=json, **operation.right(site))
    assert done.status in (200, 302), done
    assert operation.done(accounts)


@STRATEGIES
@pytest.mark.parametrize("route", ["change-password", "change-email"])
def test_their_pages_ask_for_a_new_sign_in_first(strategy: str, route: str) -> None:
    site = ann_everywhere(strategy)
    page = site.browser.get(f"{site.accounts.base}/{route}")
    assert page.status == 302
    query = query_of(page.location)
    assert query == {
        "callbackUrl": f"{site.browser.origin}{site.accounts.base}/{route}",
        "error": "SessionNotFresh",
    }
    site.sign_in_again()
    assert site.browser.get(f"{site.accounts.base}/{route}").status == 200


@STRATEGIES
def test_the_two_factor_page_and_new_codes_need_no_fresh_session(strategy: str) -> None:
    site = ann_everywhere(strategy)
    b = site.browser
    assert b.get(f"{site.accounts.base}/two-factor-setup").status == 200
    code = code_for(site.uri, b.clock.now)
    assert post(site, "two-factor-setup", json=True, action="regenerate", code=code).status == 200


@STRATEGIES
def test_fresh_age_zero_turns_the_check_off(strategy: str) -> None:
    accounts = build(strategy=strategy, session={"fresh_age": 0})
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    sign_in(accounts, ANN, PW)
    accounts.browser.advance(10 * 86400)
    b = accounts.browser
    form = {"csrfToken": b.csrf_token(), "current_password": PW, "new_password": "a new one!"}
    assert b.post(f"{accounts.base}/change-password", form=form).status == 200


def ann_on_two_browsers(strategy: str) -> tuple[Accounts, Browser]:
    """Ann, signed up with a password, signed in on another browser; the other browser."""
    session: dict[str, Any] = {"fresh_age": FRESH}
    if strategy == "jwt":
        session["revocation"] = True
    accounts = build(strategy=strategy, session=session)
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    other = accounts.pair.new_browser()
    sign_in(accounts, ANN, PW, other)
    return accounts, other


@STRATEGIES
def test_a_password_change_keeps_this_session_as_fresh_as_it_was_and_ends_the_others(
    strategy: str,
) -> None:
    accounts, other = ann_on_two_browsers(strategy)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    listed = b.get(f"{accounts.base}/sessions").json()
    assert len(listed) == 2
    [mine] = [s for s in listed if s["current"]]
    b.advance(FRESH - 10)
    form = {"csrfToken": b.csrf_token(), "current_password": PW, "new_password": "a new one!"}
    assert b.post(f"{accounts.base}/change-password", form=form).status == 200
    assert other.session() is None
    [left] = b.get(f"{accounts.base}/sessions").json()
    assert left["current"]
    assert left["createdAt"] == mine["createdAt"]  # the same sign-in: no fresher than before
    b.advance(11)  # so now past fresh_age since the sign-in
    form = {"csrfToken": b.csrf_token(), "current_password": "a new one!", "new_password": "x" * 9}
    refused = b.post(f"{accounts.base}/change-password", form=form)
    assert query_of(refused.location)["error"] == "SessionNotFresh"
    if strategy == "jwt":
        assert len(accounts.adapter.store.session_records) == 1  # the other one's is gone


@STRATEGIES
def test_a_reset_ends_every_session_and_forgets_their_records(strategy: str) -> None:
    accounts, other = ann_on_two_browsers(strategy)
    b = accounts.browser
    b.post(f"{accounts.base}/forgot-password", form={"csrfToken": b.csrf_token(), "email": ANN})
    link = accounts.outbox.last("reset-password").path
    query = query_of(link)
    form = {"csrfToken": b.csrf_token(), **query, "password": "a new one!"}
    assert b.post(f"{accounts.base}/reset-password", form=form).status in (200, 302)
    assert other.session() is None
    assert accounts.adapter.store.session_records == {}
    assert accounts.adapter.store.sessions == {}
