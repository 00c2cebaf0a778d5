"""Password accounts through the engine: sign-up, verification, sign-in, reset, changes of
password and address; answers that never tell whether an address has an account; refused
input that writes nothing."""

from __future__ import annotations

from typing import Any

import argon2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sansio_auth.events import CallAdapter, HashPassword, VerifyPassword
from sansio_auth.passwords import OWASP, Argon2Params
from tests.sansio_auth.accounts_peer import (
    FAST,
    Accounts,
    Outbox,
    build,
    sign_in,
    sign_up,
    verify,
)
from tests.sansio_auth.test_passwords import django_pbkdf2

ANN, PW = "ann@example.com", "correct horse battery"


def ann(**options: object) -> Accounts:
    """An engine with Ann signed up and verified (signed out)."""
    accounts = build(**options)  # type: ignore[arg-type]
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    return accounts


def user_of(accounts: Accounts, email: str = ANN) -> dict | None:
    store = accounts.adapter.store
    user_id = store.user_by_email.get(email)
    return None if user_id is None else store.users[user_id]


def actions(accounts: Accounts, kind: type) -> list:
    return [a for a in accounts.pair.performer.actions if isinstance(a, kind)]


def writes(accounts: Accounts) -> list[str]:
    reads = ("get_", "list_")
    return [a.method for a in actions(accounts, CallAdapter) if not a.method.startswith(reads)]


def test_sign_up_verify_and_sign_in() -> None:
    accounts = build()
    response = sign_up(accounts, ANN, PW)
    assert response.location.endswith("/verify-request?provider=password&type=verify-email")
    user = user_of(accounts)
    assert user is not None
    assert user["email_verified"] is None
    stored = accounts.adapter.store.passwords[user["id"]]
    assert stored.startswith("$argon2id$")
    assert PW not in stored
    assert accounts.outbox.last().kind == "verify-email"
    # before verification: no session, the link is sent again
    assert sign_in(accounts, ANN, PW).location.endswith("type=verify-email")
    assert accounts.browser.session() is None
    assert len([m for m in accounts.outbox.sent if m.kind == "verify-email"]) == 2
    assert verify(accounts, ANN).status == 200
    assert user_of(accounts)["email_verified"] is not None  # type: ignore[index]
    response = sign_in(accounts, ANN, PW)
    assert response.status == 302
    assert response.location == "http://localhost:3000"
    assert accounts.browser.session()["user"]["email"] == ANN


def test_a_verification_link_works_once() -> None:
    accounts = build()
    sign_up(accounts, ANN, PW)
    link = accounts.outbox.last("verify-email").path
    assert accounts.browser.get(link).status == 200
    again = accounts.browser.get(link)
    assert again.location.endswith("/error?error=Verification")


def test_database_sessions_work_too() -> None:
    accounts = ann(strategy="database")
    sign_in(accounts, ANN, PW)
    assert accounts.browser.session()["user"]["email"] == ANN
    assert len(accounts.adapter.store.sessions) == 1


@pytest.mark.parametrize(
    ("password", "error"),
    [("short", "too_short"), ("x" * 1025, "too_long"), ("", "missing")],
)
def test_a_refused_password_at_sign_up_writes_nothing(password: str, error: str) -> None:
    accounts = build()
    accounts.pair.performer.clear()
    response = sign_up(accounts, ANN, password)
    assert response.status == 400
    assert b"<form" in response.body
    assert user_of(accounts) is None
    assert accounts.outbox.sent == []
    assert writes(accounts) == []
    assert actions(accounts, HashPassword) == []
    json = accounts.browser.post(
        f"{accounts.base}/signup",
        json={"csrfToken": accounts.browser.csrf_token(), "email": ANN, "password": password},
    )
    assert (json.status, json.json()) == (400, {"error": error})


def test_the_breached_hook_refuses_a_password() -> None:
    seen: list[str] = []

    def breached(password: str) -> bool:
        seen.append(password)
        return password == "leaked passphrase 7"

    accounts = build(password={"breached": breached})
    assert sign_up(accounts, ANN, "leaked passphrase 7").status == 400
    assert user_of(accounts) is None
    assert sign_up(accounts, ANN, PW).status == 302
    assert seen == ["leaked passphrase 7", PW]


def test_an_over_long_password_at_sign_in_is_refused_before_any_hashing() -> None:
    accounts = ann()
    accounts.pair.performer.clear()
    response = sign_in(accounts, ANN, "x" * 5000)
    assert "error=CredentialsSignin" in response.location
    assert actions(accounts, VerifyPassword) == []


@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(known=st.booleans(), right=st.booleans())
def test_sign_in_answers_alike_for_unknown_addresses(known: bool, right: bool) -> None:
    """An unknown address does the same work (one password check) and gets the same answer
    as a wrong password."""
    accounts = ann()
    accounts.pair.performer.clear()
    email = ANN if known else "nobody@example.com"
    response = sign_in(accounts, email, PW if right else "wrong password!")
    checks = actions(accounts, VerifyPassword)
    assert len(checks) == 1
    assert checks[0].params == FAST
    if known and right:
        assert response.location == "http://localhost:3000"
    else:
        assert response.location.endswith("/signin?error=CredentialsSignin&code=credentials")
        assert checks[0].stored is None or not known or not right


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(taken=st.booleans())
def test_sign_up_answers_alike_for_taken_addresses(taken: bool) -> None:
    accounts = ann()
    accounts.pair.performer.clear()
    before = len(accounts.outbox.sent)
    email = ANN if taken else "bob@example.com"
    response = sign_up(accounts, email, "another passphrase")
    assert response.location.endswith("/verify-request?provider=password&type=verify-email")
    assert len(actions(accounts, HashPassword)) == 1
    [mail] = accounts.outbox.sent[before:]
    assert mail.to == email
    assert mail.kind == ("account-exists" if taken else "verify-email")


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(known=st.booleans())
def test_reset_answers_alike_for_unknown_addresses(known: bool) -> None:
    accounts = ann()
    before = len(accounts.outbox.sent)
    email = ANN if known else "nobody@example.com"
    b = accounts.browser
    response = b.post(
        f"{accounts.base}/forgot-password", form={"csrfToken": b.csrf_token(), "email": email}
    )
    assert response.location.endswith("/verify-request?provider=password&type=reset")
    [mail] = accounts.outbox.sent[before:]
    assert mail.kind == ("reset-password" if known else "no-account")


def reset(accounts: Accounts, password: str, mail=None):  # type: ignore[no-untyped-def]
    mail = mail or accounts.outbox.last("reset-password")
    b = accounts.browser
    form = {"csrfToken": b.csrf_token(), "token": mail.query["token"],
            "email": mail.query["email"], "password": password}  # fmt: skip
    return b.post(f"{accounts.base}/reset-password", form=form)


def forgot(accounts: Accounts) -> None:
    b = accounts.browser
    b.post(f"{accounts.base}/forgot-password", form={"csrfToken": b.csrf_token(), "email": ANN})


def test_reset_sets_the_password_once_and_ends_every_session() -> None:
    accounts = ann(strategy="database")
    other = accounts.pair.new_browser()
    sign_in(accounts, ANN, PW, other)
    assert other.session() is not None
    forgot(accounts)
    mail = accounts.outbox.last("reset-password")
    assert accounts.browser.get(mail.path).status == 200  # the form: the token is not used yet
    refused = reset(accounts, "short")
    assert refused.status == 400  # a refused password leaves the link usable
    assert reset(accounts, "a brand new passphrase").status == 200
    assert other.session() is None
    again = reset(accounts, "yet another passphrase", mail)
    assert again.location.endswith("/error?error=Verification")
    assert "error=CredentialsSignin" in sign_in(accounts, ANN, PW).location
    assert sign_in(accounts, ANN, "a brand new passphrase").location == "http://localhost:3000"


def test_a_reset_token_cannot_sign_in_by_email_link_nor_verify() -> None:
    accounts = ann()
    forgot(accounts)
    mail = accounts.outbox.last("reset-password")
    verify_with_it = accounts.browser.get(
        f"{accounts.base}/verify-email?token={mail.query['token']}&email={ANN}"
    )
    assert verify_with_it.location.endswith("error=Verification")
    assert reset(accounts, "a brand new passphrase").status == 200  # still usable for a reset


def test_an_outdated_hash_is_replaced_at_sign_in() -> None:
    accounts = ann()
    user_id = user_of(accounts)["id"]  # type: ignore[index]
    store = accounts.adapter.store
    store.passwords[user_id] = django_pbkdf2(PW)
    assert sign_in(accounts, ANN, PW).location == "http://localhost:3000"
    fresh = store.passwords[user_id]
    assert fresh.startswith("$argon2id$")
    assert argon2.extract_parameters(fresh).memory_cost == FAST.memory_cost


def test_new_parameters_replace_hashes_at_the_next_sign_in() -> None:
    accounts = ann()
    user_id = user_of(accounts)["id"]  # type: ignore[index]
    stronger = Argon2Params(memory_cost=128, time_cost=2)
    again = build(password={"argon2": stronger})
    again.adapter.store.__dict__.update(accounts.adapter.store.__dict__)
    assert sign_in(again, ANN, PW).location == "http://localhost:3000"
    found = argon2.extract_parameters(again.adapter.store.passwords[user_id])
    assert (found.memory_cost, found.time_cost) == (128, 2)
    assert OWASP.memory_cost == 19456


def change_password(accounts: Accounts, current: str, new: str):  # type: ignore[no-untyped-def]
    b = accounts.browser
    form = {"csrfToken": b.csrf_token(), "current_password": current, "new_password": new}
    return b.post(f"{accounts.base}/change-password", form=form)


@pytest.mark.parametrize("options", [{"strategy": "database"}, {"session": {"revocation": True}}])
def test_change_password_asks_the_current_one_and_ends_other_sessions(options: dict) -> None:
    accounts = ann(**options)
    other = accounts.pair.new_browser()
    sign_in(accounts, ANN, PW, other)
    sign_in(accounts, ANN, PW)
    assert change_password(accounts, "not my password", "a brand new one").status == 400
    assert other.session() is not None
    accounts.browser.advance(2)
    assert change_password(accounts, PW, "a brand new one").status == 200
    assert other.session() is None
    assert accounts.browser.session()["user"]["email"] == ANN
    listed = accounts.browser.get(f"{accounts.base}/sessions").json()  # the user's list
    assert [s["current"] for s in listed] == [True]
    assert sign_in(accounts, ANN, "a brand new one", other).location == "http://localhost:3000"


def test_the_database_session_kept_by_a_password_change_keeps_its_provider_session() -> None:
    """A back-channel logout of the provider session still ends the browser's new row."""
    accounts = ann(strategy="database")
    sign_in(accounts, ANN, PW)
    sessions = accounts.adapter.store.sessions
    (token,) = sessions
    sessions[token]["sid"] = "op:oidc:provider-session-1"  # as a sign-in at an OP stores it
    assert change_password(accounts, PW, "a brand new one").status == 200
    (kept,) = sessions.values()
    assert kept["session_token"] != token
    assert kept["sid"] == "op:oidc:provider-session-1"


def test_change_password_signed_out_goes_to_sign_in() -> None:
    accounts = ann()
    response = accounts.browser.get(f"{accounts.base}/change-password")
    assert "/signin?callbackUrl=" in response.location


def test_change_email_takes_effect_when_the_new_address_is_confirmed() -> None:
    accounts = ann()
    sign_in(accounts, ANN, PW)
    b = accounts.browser
    wrong = b.post(f"{accounts.base}/change-email",
                   form={"csrfToken": b.csrf_token(), "email": "new@example.com",
                         "password": "wrong one!"})  # fmt: skip
    assert wrong.status == 400
    assert accounts.outbox.last().kind == "verify-email"
    response = b.post(f"{accounts.base}/change-email",
                      form={"csrfToken": b.csrf_token(), "email": "new@example.com",
                            "password": PW})  # fmt: skip
    assert response.status == 200
    mail = accounts.outbox.last("change-email")
    assert mail.to == "new@example.com"
    assert user_of(accounts) is not None
    assert b.get(mail.path).status == 200
    assert user_of(accounts) is None
    assert user_of(accounts, "new@example.com") is not None
    assert b.get(mail.path).location.endswith("error=Verification")


def test_change_email_to_a_taken_address_answers_alike_and_sends_nothing() -> None:
    accounts = ann()
    sign_up(accounts, "bob@example.com", "bobs passphrase")
    sign_in(accounts, ANN, PW)
    before = len(accounts.outbox.sent)
    b = accounts.browser
    response = b.post(f"{accounts.base}/change-email",
                      form={"csrfToken": b.csrf_token(), "email": "bob@example.com",
                            "password": PW})  # fmt: skip
    assert response.status == 200
    assert len(accounts.outbox.sent) == before


def test_json_answers() -> None:
    accounts = build()
    b = accounts.browser
    response = b.post(f"{accounts.base}/signup",
                      json={"csrfToken": b.csrf_token(), "email": ANN, "password": PW})  # fmt: skip
    assert response.status == 200
    assert response.json()["url"].endswith("type=verify-email")


def test_the_providers_list_says_credentials_for_auth_js_clients() -> None:
    accounts = build()
    providers = accounts.browser.get(f"{accounts.base}/providers").json()
    assert providers["password"]["type"] == "credentials"
    assert providers["password"]["callbackUrl"].endswith("/callback/password")


def test_the_sign_in_page_has_the_password_form_and_links() -> None:
    page = build().browser.get("/auth/signin").body.decode()
    assert 'action="http://localhost:3000/auth/callback/password"' in page
    assert "/auth/forgot-password" in page
    assert "/auth/signup" in page
    closed = build(password={"sign_up": False}).browser.get("/auth/signin").body.decode()
    assert "/auth/signup" not in closed


def test_account_emails_go_through_an_http_email_api_too() -> None:
    """With a Resend (SendGrid, ...) e-mail provider and no ``send_email``, the account e-mails
    are sent through the service's API, as the sign-in links are."""
    from io_bindings.db.memory import MemoryAdapter
    from sansio_auth import AuthConfig
    from sansio_auth.events import HTTPResponse
    from sansio_auth.providers import Password, Resend
    from sansio_auth.testing import SECRET
    from tests.sansio_auth.driver import AuthPair

    config = AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=MemoryAdapter(),
        providers=[Resend(api_key="re_test"), Password(argon2=FAST)],
        session={"strategy": "jwt"},
    )
    pair = AuthPair.build(config)
    sent = []
    pair.performer.http = lambda request: sent.append(request) or HTTPResponse(status=200)
    b = pair.browser
    b.post("/auth/signup", form={"csrfToken": b.csrf_token(), "email": ANN, "password": PW})
    [request] = sent
    assert request.url == "https://api.resend.com/emails"
    assert b"Verify your email address" in request.body
    assert b"/auth/verify-email?token=" in request.body


def test_a_sign_up_whose_email_cannot_be_sent_leaves_nothing_behind() -> None:
    def broken(**_: object) -> None:
        raise OSError("the mail server is down")

    accounts = build(password={"send_email": lambda identifier, message: broken()})
    response = sign_up(accounts, ANN, PW)
    assert response.location.endswith("/error?error=Configuration")
    store = accounts.adapter.store
    assert store.users == {}
    assert store.passwords == {}
    assert store.tokens == {}


def test_a_reset_whose_email_cannot_be_sent_leaves_no_token() -> None:
    class Flaky(Outbox):
        def __call__(self, identifier: str, url: str, message: Any, kind: str, token: Any) -> None:
            if kind == "reset-password":
                raise OSError("the mail server is down")
            super().__call__(identifier, url, message, kind, token)

    accounts = build(password={"send_email": Flaky()})
    sign_up(accounts, ANN, PW)
    accounts.outbox = accounts.pair.engine.settings.providers[0].send_email  # type: ignore[assignment]
    verify(accounts, ANN)
    before = dict(accounts.adapter.store.tokens)
    answer = forgot_answer(accounts)  # the sender's outage: temporary, not a configuration fault
    assert answer.status == 503
    assert b"could not be sent" in answer.body
    assert accounts.adapter.store.tokens == before


def forgot_answer(accounts: Accounts) -> Any:
    b = accounts.browser
    return b.post(
        f"{accounts.base}/forgot-password", form={"csrfToken": b.csrf_token(), "email": ANN}
    )
