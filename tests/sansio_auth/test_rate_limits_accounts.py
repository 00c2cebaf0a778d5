"""Rate limits on the password accounts (docs/accounts.md): password sign-ins and the current
password of a change per account and per client, the account e-mails per address and per
client, second-factor codes per user; a ``429`` tells nothing about whether an address has
an account; a hash that outlives the sign-in's deadline ends in ``DeadlineExceeded``."""

from __future__ import annotations

from typing import Any

from sansio_auth.errors import DeadlineExceeded
from sansio_auth.events import Failed, HashPassword, VerifyPassword
from tests.sansio_auth.accounts_peer import Accounts, build, code_for, sign_in, sign_up, verify
from tests.sansio_auth.driver import Browser, query_of

ANN, PW = "ann@example.com", "correct horse battery"
CLIENT = "198.51.100.20"
JSON = {"accept": "application/json"}


class Audit:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **message: Any) -> None:
        self.calls.append(message)


def accounts_with(limits: dict[str, Any], audit: Audit | None = None, **options: Any) -> Accounts:
    """Ann signed up and verified, under ``limits`` only (the others off)."""
    off = dict.fromkeys(
        (
            "credentials_per_account",
            "credentials_per_client",
            "credentials_per_device",
            "email_per_address",
            "email_per_client",
            "email_per_device",
            "passkey_per_client",
            "two_factor_per_user",
        )
    )
    events = {"sign_in": lambda **_: None, **({"rate_limited": audit} if audit else {})}
    accounts = build(rate_limits={**off, **limits}, events=events, **options)
    accounts.browser.client = CLIENT
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    return accounts


def post(accounts: Accounts, route: str, browser: Browser | None = None, **form: str) -> Any:
    b = browser or accounts.browser
    return b.post(f"{accounts.base}/{route}", form={"csrfToken": b.csrf_token(), **form})


def test_password_sign_ins_per_account_then_429_even_with_the_right_password() -> None:
    audit = Audit()
    accounts = accounts_with({"credentials_per_account": (3, 60)}, audit)
    for _ in range(3):
        wrong = sign_in(accounts, " Ann@Example.com", "wrong password!")
        assert query_of(wrong.location)["error"] == "CredentialsSignin"
    limited = sign_in(accounts, ANN, PW)
    assert limited.status == 429
    assert limited.header("retry-after") == "60"
    assert b"Too many attempts" in limited.body
    assert accounts.browser.session() is None
    assert audit.calls == [
        {
            "limit": "credentials_per_account",
            "provider": "password",
            "identifier": ANN,
            "client": CLIENT,
            "retry_after": 60,
        }
    ]
    accounts.pair.performer.clear()
    assert sign_in(accounts, ANN, PW).status == 429
    checked = [a for a in accounts.pair.performer.actions if isinstance(a, VerifyPassword)]
    assert checked == []  # refused before the password is looked at
    accounts.browser.advance(60)
    assert sign_in(accounts, ANN, PW).status == 302
    assert accounts.browser.session()["user"]["email"] == ANN


def test_an_unknown_address_is_limited_alike() -> None:
    accounts = accounts_with({"credentials_per_account": (2, 60)})
    answers = [sign_in(accounts, "nobody@example.com", PW).status for _ in range(3)]
    assert answers == [302, 302, 429]


def test_password_sign_ins_per_client() -> None:
    accounts = accounts_with({"credentials_per_client": (2, 60)})
    assert sign_in(accounts, "a@example.com", "x" * 12).status == 302
    assert sign_in(accounts, "b@example.com", "x" * 12).status == 302
    assert sign_in(accounts, ANN, PW).status == 429
    other = accounts.pair.new_browser()
    other.client = "198.51.100.99"
    assert sign_in(accounts, ANN, PW, other).status == 302


def test_a_script_gets_json() -> None:
    accounts = accounts_with({"credentials_per_account": (1, 60)})
    sign_in(accounts, ANN, "wrong password!")
    b = accounts.browser
    limited = b.post(
        f"{accounts.base}/callback/password",
        form={"csrfToken": b.csrf_token(), "email": ANN, "password": PW},
        headers={"x-auth-return-redirect": "1"},
    )
    assert limited.status == 429
    assert limited.json()["error"] == "RateLimited"


def test_the_current_password_of_a_change_counts_with_the_sign_ins() -> None:
    accounts = accounts_with({"credentials_per_account": (3, 60)})  # no device limit
    assert sign_in(accounts, ANN, PW).status == 302  # 1
    wrong = post(accounts, "change-password", current_password="nope", new_password="a" * 16)
    assert wrong.status == 400  # 2
    wrong = post(accounts, "change-email", email="new@example.com", password="nope")
    assert wrong.status == 400  # 3
    limited = post(accounts, "change-password", current_password=PW, new_password="b" * 16)
    assert limited.status == 429
    assert post(accounts, "change-email", email="new@example.com", password=PW).status == 429
    assert sign_in(accounts, ANN, PW, accounts.pair.new_browser()).status == 429


def test_a_known_device_counts_its_changes_and_sign_ins_on_its_own() -> None:
    limits = {"credentials_per_account": (3, 60), "credentials_per_device": (3, 60)}
    accounts = accounts_with(limits)
    assert sign_in(accounts, ANN, PW).status == 302  # the account's 1st: now a known device
    wrong = post(accounts, "change-password", current_password="nope", new_password="a" * 16)
    assert wrong.status == 400  # the device's 1st
    wrong = post(accounts, "change-email", email="new@example.com", password="nope")
    assert wrong.status == 400  # 2nd
    assert sign_in(accounts, ANN, "wrong password!").status == 302  # 3rd
    limited = post(accounts, "change-password", current_password=PW, new_password="b" * 16)
    assert limited.status == 429
    assert post(accounts, "change-email", email="new@example.com", password=PW).status == 429
    assert sign_in(accounts, ANN, PW, accounts.pair.new_browser()).status == 302  # account: 2


def test_sign_up_and_reset_mails_per_address_then_429_and_nothing_sent() -> None:
    accounts = accounts_with({"email_per_address": (3, 60)})  # the sign-up mailed Ann: 1
    assert post(accounts, "forgot-password", email=ANN).status == 302  # 2
    assert post(accounts, "signup", email=ANN, password="another long one").status == 302  # 3
    sent = len(accounts.outbox.sent)
    assert post(accounts, "forgot-password", email=ANN).status == 429
    assert post(accounts, "signup", email=ANN, password="another long one").status == 429
    assert len(accounts.outbox.sent) == sent
    for _ in range(3):  # an address without an account is limited alike
        assert post(accounts, "forgot-password", email="nobody@example.com").status == 302
    assert post(accounts, "forgot-password", email="nobody@example.com").status == 429


def test_account_mails_per_client() -> None:
    accounts = accounts_with({"email_per_client": (2, 60)})  # the sign-up: 1
    assert post(accounts, "forgot-password", email="x@example.com").status == 302
    assert post(accounts, "forgot-password", email="y@example.com").status == 429


def test_a_change_of_address_mails_the_new_address_within_its_limit() -> None:
    accounts = accounts_with({"email_per_address": (1, 60)})
    sign_in(accounts, ANN, PW)
    assert post(accounts, "change-email", email="new@example.com", password=PW).status == 200
    again = post(accounts, "change-email", email="new@example.com", password=PW)
    assert again.status == 429
    assert len([m for m in accounts.outbox.sent if m.kind == "change-email"]) == 1


def enrolled(limits: dict[str, Any], **two_factor: Any) -> tuple[Accounts, str]:
    accounts = accounts_with(limits, two_factor=two_factor)
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    uri = b.get(f"{accounts.base}/two-factor-setup", headers=JSON).json()["uri"]
    enabled = post(accounts, "two-factor-setup", action="enable", code=code_for(uri, b.clock.now))
    assert enabled.status == 200
    b.sign_out()
    b.advance(30)
    return accounts, uri


def test_second_factor_codes_per_user() -> None:
    accounts, uri = enrolled({"two_factor_per_user": (3, 120)})
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    assert post(accounts, "two-factor", method="totp", code="000000").status == 400
    assert post(accounts, "two-factor", method="recovery", recovery_code="abcd-efgh").status == 400
    assert post(accounts, "two-factor", method="totp", code="111111").status == 400
    limited = post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now))
    assert limited.status == 429
    assert b.session() is None
    other = accounts.pair.new_browser()  # the user's limit, whichever browser
    other.client = "198.51.100.99"
    sign_in(accounts, ANN, PW, other)
    assert post(accounts, "two-factor", other, method="totp", code="222222").status == 429
    b.advance(120)
    sign_in(accounts, ANN, PW)
    assert (
        post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now)).status == 302
    )
    assert b.session()["user"]["email"] == ANN


def test_turning_two_factor_off_is_limited_too() -> None:
    accounts, uri = enrolled({"two_factor_per_user": (2, 60)})
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    post(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now))  # 1
    assert post(accounts, "two-factor-setup", action="disable", code="000000").status == 400  # 2
    b.advance(30)
    right = code_for(uri, b.clock.now)
    assert post(accounts, "two-factor-setup", action="disable", code=right).status == 429
    assert accounts.adapter.store.two_factors  # still on


def test_emailed_second_factor_codes_per_address() -> None:
    accounts, _ = enrolled({"email_per_address": (2, 60)}, email_code=True)  # sign-up: 1
    sign_in(accounts, ANN, PW)
    assert b"emailed you a code" in post(accounts, "two-factor", method="send-email").body
    assert post(accounts, "two-factor", method="send-email").status == 429
    assert len([m for m in accounts.outbox.sent if m.kind == "two-factor-code"]) == 1


def times_out(accounts: Accounts, kind: type) -> None:
    """The binding's answer to every ``kind`` action: the sign-in's deadline ran out."""
    performer = accounts.pair.performer
    perform = performer.perform

    def answer(action: Any) -> Any:
        if isinstance(action, kind):
            return Failed(error=TimeoutError("the sign-in took longer than 45 s"))
        return perform(action)

    performer.perform = answer  # type: ignore[method-assign]


def deadline_logged(accounts: Accounts) -> DeadlineExceeded:
    [entry] = [e for e in accounts.pair.performer.logs if e.code == "DeadlineExceeded"]
    assert isinstance(entry.error, DeadlineExceeded)
    return entry.error


def test_a_password_check_cut_by_the_deadline_is_deadline_exceeded() -> None:
    accounts = accounts_with({})
    times_out(accounts, VerifyPassword)
    failed = sign_in(accounts, ANN, PW)
    assert failed.location == "http://localhost:3000/auth/error?error=Configuration"
    assert deadline_logged(accounts).cause["action"] == "verify_password"
    assert accounts.browser.session() is None


def test_a_hash_cut_by_the_deadline_makes_no_user() -> None:
    accounts = accounts_with({})
    times_out(accounts, HashPassword)
    failed = sign_up(accounts, "bob@example.com", PW)
    assert failed.location == "http://localhost:3000/auth/error?error=Configuration"
    assert deadline_logged(accounts).cause["action"] == "hash_password"
    assert [u["email"] for u in accounts.adapter.store.users.values()] == [ANN]
