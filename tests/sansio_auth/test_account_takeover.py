"""Account takeovers an audit tried through the engine, each refused: a stolen, stale session
that sets up or replaces the second factor or adds a way in; a set-up cookie carried into
another account's session; e-mailed codes of another waiting sign-in; guessing codes for
ever; mailbox access alone past the second factor."""

from __future__ import annotations

import json
from typing import Any

from sansio_auth.providers import Email, Passkey
from sansio_auth.testing import seeded_entropy
from sansio_auth.testing.webauthn import SoftAuthenticator
from sansio_auth.two_factor import is_locked
from tests.sansio_auth.accounts_peer import Accounts, build, code_for, sign_in, sign_up, verify
from tests.sansio_auth.driver import Browser, query_of
from tests.sansio_auth.oauth.fake_op import FakeOP
from tests.sansio_auth.oauth.fake_op import sign_in as op_sign_in

ANN, EVE, PW = "ann@example.com", "eve@example.com", "correct horse battery"
FRESH = 600
JSON = {"accept": "application/json"}


def site(people: tuple[str, ...] = (ANN, EVE), **options: Any) -> Accounts:
    """Ann and Eve signed up with a password and verified their addresses (signed out)."""
    options.setdefault("two_factor", {"trust_device_days": 0})
    options.setdefault("session", {"fresh_age": FRESH})
    accounts = build(**options)
    for email in people:
        sign_up(accounts, email, PW, accounts.pair.new_browser())
        verify(accounts, email)
    return accounts


def post(accounts: Accounts, route: str, browser: Browser | None = None, **form: str) -> Any:
    b = browser or accounts.browser
    return b.post(f"{accounts.base}/{route}", form={"csrfToken": b.csrf_token(), **form})


def set_up(accounts: Accounts, browser: Browser) -> tuple[str, list[str]]:
    """The signed-in user of ``browser`` turns two-factor on; the app's URI, the recovery
    codes."""
    uri = browser.get(f"{accounts.base}/two-factor-setup", headers=JSON).json()["uri"]
    form = {"csrfToken": browser.csrf_token(), "action": "enable"}
    done = browser.post(
        f"{accounts.base}/two-factor-setup",
        form={**form, "code": code_for(uri, browser.clock.now)},
        headers=JSON,
    )
    assert done.status == 200, done
    return str(uri), done.json()["recovery_codes"]


def user_id(accounts: Accounts, email: str) -> str:
    return str(accounts.adapter.store.user_by_email[email])


def test_a_stale_session_cannot_turn_two_factor_on_and_the_page_asks_for_a_sign_in() -> None:
    accounts = site()
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    b.advance(FRESH + 1)
    page = b.get(f"{accounts.base}/two-factor-setup")
    assert query_of(page.location)["error"] == "SessionNotFresh"
    refused = post(accounts, "two-factor-setup", action="enable", code="123456")
    assert query_of(refused.location)["error"] == "SessionNotFresh"
    assert accounts.adapter.store.two_factors == {}


def test_a_set_up_cookie_made_in_another_account_confirms_nothing() -> None:
    """Eve opens the set-up on her own account, then posts its cookie and a code of her app
    in Ann's fresh session (stolen): a new set-up begins instead, Ann's factor stays."""
    accounts = site()
    ann_browser, eve = accounts.browser, accounts.pair.new_browser()
    sign_in(accounts, ANN, PW, ann_browser)
    ann_uri, _ = set_up(accounts, ann_browser)
    sign_in(accounts, EVE, PW, eve)
    eve_uri = eve.get(f"{accounts.base}/two-factor-setup", headers=JSON).json()["uri"]
    name = next(k for k in eve.jar if "two-factor-setup" in k)
    ann_browser.advance(30)
    before = dict(accounts.adapter.store.two_factors)
    ann_browser.jar[name] = eve.jar[name]
    refused = post(
        accounts,
        "two-factor-setup",
        ann_browser,
        action="enable",
        code=code_for(eve_uri, ann_browser.clock.now),
        current_code=code_for(ann_uri, ann_browser.clock.now),
    )
    assert refused.status == 400
    assert accounts.adapter.store.two_factors == before


def test_replacing_the_app_needs_a_code_of_the_current_one() -> None:
    accounts = site()
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    old, _ = set_up(accounts, b)
    b.advance(30)
    new = b.get(f"{accounts.base}/two-factor-setup?action=replace", headers=JSON).json()["uri"]
    assert new != old
    wrong = post(
        accounts,
        "two-factor-setup",
        action="enable",
        code=code_for(new, b.clock.now),
        current_code="000000",
    )
    assert wrong.status == 400
    assert b"current_code" in wrong.body  # the replacement's form again
    right = post(
        accounts,
        "two-factor-setup",
        action="enable",
        code=code_for(new, b.clock.now),
        current_code=code_for(old, b.clock.now),
    )
    assert right.status == 200
    b.sign_out()
    b.advance(30)
    sign_in(accounts, ANN, PW)
    assert (
        post(accounts, "two-factor", method="totp", code=code_for(old, b.clock.now)).status == 400
    )
    assert (
        post(accounts, "two-factor", method="totp", code=code_for(new, b.clock.now)).status == 302
    )


def test_a_stale_session_cannot_link_an_account_by_signing_in_with_it() -> None:
    """Signing in with a provider while holding a stale session no longer links the
    provider's account to the session's user: the browser is asked to sign in again."""
    op = FakeOP()
    op.users["eve"] = {"sub": "eve-sub", "email": "eve@op.example", "email_verified": True}
    accounts = site(providers=[op.provider()])
    op.connect(accounts.pair)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    b.advance(FRESH + 1)
    refused = op_sign_in(b, op, "op", user="eve")
    assert query_of(refused.location)["error"] == "SessionNotFresh"
    assert accounts.adapter.store.accounts == {}
    sign_in(accounts, ANN, PW)  # fresh again: linking works
    assert op_sign_in(b, op, "op", user="eve").status == 302
    [linked] = accounts.adapter.store.accounts.values()
    assert str(linked["user_id"]) == user_id(accounts, ANN)


def test_a_stale_session_cannot_add_a_passkey() -> None:
    accounts = site(providers=[Passkey()], experimental={"enable_webauthn": True})
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    b.advance(FRESH + 1)
    refused = b.get(f"{accounts.base}/webauthn-options/passkey?action=register")
    assert refused.status == 403
    assert refused.json()["error"] == "SessionNotFresh"
    sign_in(accounts, ANN, PW)
    options = b.get(f"{accounts.base}/webauthn-options/passkey?action=register").json()
    b.advance(FRESH + 1)  # stale again when the passkey comes back
    phone = SoftAuthenticator(entropy=seeded_entropy("phone"))
    answer = json.dumps(phone.respond(options, origin="http://localhost:3000"))
    late = post(accounts, "callback/passkey", action="register", data=answer)
    assert query_of(late.location)["error"] == "SessionNotFresh"
    assert accounts.adapter.store.authenticators == {}


def test_an_emailed_code_belongs_to_its_waiting_sign_in_and_only_the_last_one_counts() -> None:
    accounts = site(two_factor={"email_code": True, "trust_device_days": 0})
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    set_up(accounts, b)
    b.sign_out()
    sign_in(accounts, ANN, PW)
    post(accounts, "two-factor", method="send-email")
    first = accounts.outbox.last("two-factor-code").token
    post(accounts, "two-factor", method="send-email")
    second = accounts.outbox.last("two-factor-code").token
    assert first != second
    assert post(accounts, "two-factor", method="email", email_code=str(first)).status == 400

    other = accounts.pair.new_browser()  # another waiting sign-in of Ann's
    sign_in(accounts, ANN, PW, other)
    assert post(accounts, "two-factor", other, method="email", email_code=str(second)).status == 400
    assert post(accounts, "two-factor", method="email", email_code=str(second)).status == 302


def test_wrong_codes_in_a_row_lock_the_app_and_a_recovery_code_still_signs_in() -> None:
    accounts = site(
        two_factor={"max_failures": 5, "trust_device_days": 0},
        rate_limits={"two_factor_per_user": None},
    )
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    uri, codes = set_up(accounts, b)
    b.sign_out()
    b.advance(30)
    sign_in(accounts, ANN, PW)
    right = code_for(uri, b.clock.now)
    wrong = "000000" if right != "000000" else "111111"
    for _ in range(4):
        assert b"not valid" in post(accounts, "two-factor", method="totp", code=wrong).body
    locked = post(accounts, "two-factor", method="totp", code=wrong)
    assert b"Too many wrong codes" in locked.body
    assert is_locked(accounts.adapter.store.two_factors[user_id(accounts, ANN)])
    assert b"Too many wrong codes" in post(accounts, "two-factor", method="totp", code=right).body
    assert b.session() is None
    done = post(accounts, "two-factor", method="recovery", recovery_code=codes[0])
    assert done.status == 302
    # the way back: the app set up again (the recovery code of its replacement)
    b.advance(30)
    new = b.get(f"{accounts.base}/two-factor-setup?action=replace", headers=JSON).json()["uri"]
    replaced = post(
        accounts,
        "two-factor-setup",
        action="enable",
        code=code_for(new, b.clock.now),
        current_code=codes[1],
    )
    assert replaced.status == 200
    assert not is_locked(accounts.adapter.store.two_factors[user_id(accounts, ANN)])


def test_a_right_code_starts_the_count_again() -> None:
    accounts = site(
        two_factor={"max_failures": 3, "trust_device_days": 0},
        rate_limits={"two_factor_per_user": None},
    )
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    uri, _ = set_up(accounts, b)
    for _ in range(3):
        b.sign_out()
        b.advance(30)
        sign_in(accounts, ANN, PW)
        for _ in range(2):
            assert post(accounts, "two-factor", method="totp", code="000000").status == 400
        assert (
            post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now)).status
            == 302
        )
    assert not is_locked(accounts.adapter.store.two_factors[user_id(accounts, ANN)])


def test_an_email_link_asks_for_the_second_factor_by_default() -> None:
    links: list[str] = []
    accounts = site(providers=[Email(send_verification_request=lambda url: links.append(url))])
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    uri, _ = set_up(accounts, b)
    b.sign_out()
    b.post(f"{accounts.base}/signin/email", form={"csrfToken": b.csrf_token(), "email": ANN})
    assert b.get(links[-1]).location == "http://localhost:3000/auth/two-factor"
    assert b.session() is None
    b.advance(30)
    assert (
        post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now)).status == 302
    )
    assert b.session()["user"]["email"] == ANN


def test_an_app_may_leave_email_links_out_explicitly() -> None:
    links: list[str] = []
    accounts = site(
        providers=[Email(send_verification_request=lambda url: links.append(url))],
        two_factor={"providers": ["password"], "trust_device_days": 0},
    )
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    set_up(accounts, b)
    b.sign_out()
    b.post(f"{accounts.base}/signin/email", form={"csrfToken": b.csrf_token(), "email": ANN})
    b.get(links[-1])
    assert b.session()["user"]["email"] == ANN


def _revocable(**options: Any) -> Accounts:
    return site(two_factor=None, session={"revocation": True, "fresh_age": FRESH}, **options)


def test_a_copy_of_a_signed_out_jwt_session_reads_no_session() -> None:
    accounts = _revocable()
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    thief = accounts.pair.new_browser()
    thief.jar.update(b.jar)
    assert thief.session()["user"]["email"] == ANN
    b.sign_out()
    assert thief.session() is None


def test_a_new_sign_in_in_the_same_browser_ends_the_session_it_replaces() -> None:
    accounts = _revocable()
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    thief = accounts.pair.new_browser()
    thief.jar.update(b.jar)
    b.advance(5)
    sign_in(accounts, ANN, PW)
    assert thief.session() is None
    listed = b.get(f"{accounts.base}/sessions").json()
    assert [s["current"] for s in listed] == [True]


def test_every_session_listed_is_one_that_can_still_read() -> None:
    accounts = _revocable()
    b, phone = accounts.browser, accounts.pair.new_browser()
    sign_in(accounts, ANN, PW)
    sign_in(accounts, ANN, PW, phone)
    accounts.adapter.store.session_records.clear()  # records lost (a store restored, ...)
    b.advance(accounts.pair.engine.settings.session.update_age + 1)
    assert phone.session() is not None  # its cookie is re-issued: its record made anew
    listed = phone.get(f"{accounts.base}/sessions").json()
    assert [s["current"] for s in listed] == [True]
    ended = post(accounts, "revoke-other-sessions", phone)
    assert ended.status in (200, 302)
    b.advance(accounts.pair.engine.settings.session.update_age + 1)
    assert b.session() is not None  # the laptop's, not listed when ended: re-issued, listed
    assert len(phone.get(f"{accounts.base}/sessions").json()) == 2


def test_a_password_change_ends_a_session_signed_in_the_same_second() -> None:
    accounts = _revocable()
    b, other = accounts.browser, accounts.pair.new_browser()
    sign_in(accounts, ANN, PW)
    b.advance(0.4)
    sign_in(accounts, ANN, PW, other)  # within the same second
    b.advance(0.3)
    changed = post(accounts, "change-password", current_password=PW, new_password="a new one!")
    assert changed.status == 200
    assert other.session() is None
    assert b.session()["user"]["email"] == ANN
    listed = b.get(f"{accounts.base}/sessions").json()
    assert [s["current"] for s in listed] == [True]
    b.advance(0.01)  # a later revocation ends the kept session too
    assert post(accounts, "revoke-other-sessions").status in (200, 302)
    ended = b.post(
        f"{accounts.base}/revoke-session",
        json={"csrfToken": b.csrf_token(), "id": listed[0]["id"]},
    )
    assert ended.json() == {"revoked": 1}
    thief = accounts.pair.new_browser()
    thief.jar.update(b.jar)
    assert thief.session() is None


# -- pre-registered addresses ---------------------------------------------------------------------

PREY = "prey@example.com"


def _prey_site(**options: Any) -> tuple[Accounts, list[str]]:
    links: list[str] = []
    options.setdefault("password", {"require_verified_email": False})
    accounts = site(
        people=(),
        providers=[Email(send_verification_request=lambda url: links.append(url))],
        session={"revocation": True, "fresh_age": FRESH},
        **options,
    )
    return accounts, links


def test_a_password_set_before_the_owner_proved_the_address_stops_working() -> None:
    """The attacker signs up with the prey's address (signed in at once), adds a second
    factor; the owner signs in with an e-mail link: the attacker's password, second factor and
    session are gone, and the owner is told."""
    accounts, links = _prey_site()
    attacker, owner = accounts.pair.new_browser(), accounts.browser
    sign_up(accounts, PREY, "attacker's password", attacker)
    assert attacker.session()["user"]["email"] == PREY
    set_up(accounts, attacker)
    owner.post(
        f"{accounts.base}/signin/email", form={"csrfToken": owner.csrf_token(), "email": PREY}
    )
    signed_in = owner.get(links[-1])
    assert signed_in.location == "http://localhost:3000"  # no challenge: the factor is gone
    assert owner.session()["user"]["email"] == PREY
    assert attacker.session() is None
    store = accounts.adapter.store
    prey_id = user_id(accounts, PREY)
    assert prey_id not in store.passwords
    assert store.two_factors.get(prey_id) is None
    told = accounts.outbox.last("sign-in-methods-removed", PREY)
    assert "removed" in told.message.text
    refused = sign_in(accounts, PREY, "attacker's password", accounts.pair.new_browser())
    assert query_of(refused.location)["error"] == "CredentialsSignin"
    assert owner.session()["user"]["email"] == PREY  # the owner's own session stays


def test_a_reset_link_claims_the_address_the_same_way() -> None:
    accounts, _ = _prey_site()
    attacker, owner = accounts.pair.new_browser(), accounts.browser
    sign_up(accounts, PREY, "attacker's password", attacker)
    set_up(accounts, attacker)
    post(accounts, "forgot-password", owner, email=PREY)
    link = accounts.outbox.last("reset-password", PREY)
    done = post(accounts, "reset-password", owner, **link.query, password="the owner's own")
    assert done.status == 200
    assert attacker.session() is None
    assert accounts.adapter.store.two_factors.get(user_id(accounts, PREY)) is None
    assert sign_in(accounts, PREY, "attacker's password").location.endswith("code=credentials")
    b = accounts.pair.new_browser()
    assert sign_in(accounts, PREY, "the owner's own", b).location == "http://localhost:3000"


def test_a_verified_account_keeps_its_password_when_it_signs_in_by_link() -> None:
    links: list[str] = []
    accounts = site(providers=[Email(send_verification_request=lambda url: links.append(url))])
    b = accounts.browser
    b.post(f"{accounts.base}/signin/email", form={"csrfToken": b.csrf_token(), "email": ANN})
    assert b.get(links[-1]).location == "http://localhost:3000"
    assert user_id(accounts, ANN) in accounts.adapter.store.passwords
    assert not [m for m in accounts.outbox.sent if m.kind == "sign-in-methods-removed"]


def _op_site(**provider: Any) -> tuple[Accounts, FakeOP]:
    op = FakeOP()
    op.users["prey"] = {"sub": "prey-sub", "email": PREY, "email_verified": True}
    accounts = site(
        people=(),
        providers=[op.provider(**provider)],
        password={"require_verified_email": False},
    )
    op.connect(accounts.pair)
    return accounts, op


def test_a_provider_never_joins_an_unverified_account_by_its_address() -> None:
    accounts, op = _op_site(allow_dangerous_email_account_linking=True)
    attacker = accounts.pair.new_browser()
    sign_up(accounts, PREY, "attacker's password", attacker)
    owner = accounts.pair.new_browser()
    refused = op_sign_in(owner, op, "op", user="prey")
    assert query_of(refused.location)["error"] == "OAuthAccountNotLinked"
    assert accounts.adapter.store.accounts == {}


def test_a_provider_that_vouches_verifies_the_address_of_a_sign_up_and_of_a_link() -> None:
    accounts, op = _op_site()
    op.users["quiet"] = {"sub": "quiet-sub", "email": "quiet@example.com"}  # says nothing
    b = accounts.pair.new_browser()
    op_sign_in(b, op, "op", user="prey")
    assert accounts.adapter.store.users[user_id(accounts, PREY)]["email_verified"] is not None
    op_sign_in(accounts.pair.new_browser(), op, "op", user="quiet")
    quiet = accounts.adapter.store.users[user_id(accounts, "quiet@example.com")]
    assert quiet["email_verified"] is None

    # Ann signs up unverified (no verification asked), then links her account at the OP
    accounts2, op2 = _op_site()
    op2.users["ann"] = {"sub": "ann-sub", "email": "unverified@example.com", "email_verified": True}
    ann = accounts2.browser
    sign_up(accounts2, "unverified@example.com", PW, ann)
    assert op_sign_in(ann, op2, "op", user="ann").status == 302
    stored = accounts2.adapter.store.users[user_id(accounts2, "unverified@example.com")]
    assert stored["email_verified"] is not None


def test_two_clients_of_one_issuer_see_one_subject_as_one_account() -> None:
    op = FakeOP()
    op.users["ann"] = {"sub": "ann-sub", "email": ANN, "email_verified": True}
    accounts = build(providers=[op.provider(id="op"), op.provider(id="op-mobile")])
    op.connect(accounts.pair)
    op_sign_in(accounts.browser, op, "op", user="ann")
    phone = accounts.pair.new_browser()
    assert op_sign_in(phone, op, "op-mobile", user="ann").location == "http://localhost:3000"
    assert list(accounts.adapter.store.accounts) == [("op", "ann-sub")]
    assert phone.session()["user"]["email"] == ANN


def test_the_password_is_listed_as_a_way_in() -> None:
    accounts = site(two_factor=None)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    [password] = b.get(f"{accounts.base}/accounts").json()
    assert password == {
        "provider": "password",
        "providerName": "Password",
        "type": "password",
        "providerAccountId": user_id(accounts, ANN),
        "canUnlink": False,  # the only way in
    }
    refused = b.post(f"{accounts.base}/unlink/password", json={"csrfToken": b.csrf_token()})
    assert refused.status == 409
    assert user_id(accounts, ANN) in accounts.adapter.store.passwords


def test_the_set_up_cookie_is_this_hosts_only_on_https() -> None:
    from sansio_auth.cookies import cookie_set

    spec = cookie_set(True, 3600, {}).two_factor_setup
    assert spec.name == "__Host-authjs.two-factor-setup"
    assert spec.options.secure
    assert spec.options.path == "/"
    assert spec.options.domain is None
    assert cookie_set(False, 3600, {}).two_factor_setup.name == "authjs.two-factor-setup"
