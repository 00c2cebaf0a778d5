"""The level of what the engine logs: a refusal the user caused (a wrong password or code, a
form to correct, an expired link, a limit reached) is one warning per request; only faults
of the server (the configuration, a callback, the adapter, the provider) are errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import errors
from sansio_auth._flow import log_level
from sansio_auth.errors import AuthError, Fault, fault_of
from sansio_auth.events import Log
from tests.sansio_auth.accounts_peer import Accounts, build, code_for, sign_in, sign_up, verify

ANN, PW = "ann@example.com", "correct horse battery"
FAULTS: tuple[Fault, ...] = (
    "browser",
    "provider",
    "configuration",
    "callback",
    "adapter",
    "engine",
)
AUTH_ERRORS = sorted(
    (c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, AuthError)),
    key=lambda c: c.__name__,
)


@given(kind=st.sampled_from(AUTH_ERRORS), fault=st.none() | st.sampled_from(FAULTS))
def test_the_level_is_the_faults(kind: type[AuthError], fault: Fault | None) -> None:
    error = kind("x", fault=fault)
    assert log_level(error) == ("warn" if fault_of(error) == "browser" else "error")


@given(st.sampled_from([ValueError, KeyError, RuntimeError, TimeoutError]))
def test_an_unexpected_exception_is_an_error(kind: type[Exception]) -> None:
    assert log_level(kind("a bug")) == "error"


def ann(**options: Any) -> Accounts:
    accounts = build(**options)
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    accounts.pair.performer.clear()
    return accounts


def post(accounts: Accounts, route: str, **form: str) -> Any:
    b = accounts.browser
    return b.post(f"{accounts.base}/{route}", form={"csrfToken": b.csrf_token(), **form})


def logged(accounts: Accounts) -> list[Log]:
    """What was logged above debug since the last look (then forgotten)."""
    found = [e for e in accounts.pair.performer.logs if e.level != "debug"]
    accounts.pair.performer.clear()
    return found


def one_warning(accounts: Accounts) -> Log:
    [entry] = logged(accounts)
    assert entry.level == "warn", entry
    return entry


def test_a_wrong_password_is_one_warning() -> None:
    accounts = ann()
    assert "error=CredentialsSignin" in sign_in(accounts, ANN, "not my password").location
    entry = one_warning(accounts)
    assert entry.code == "CredentialsSignin"
    assert str(entry).startswith("[auth][warn] CredentialsSignin: wrong e-mail address or")


@pytest.mark.parametrize(
    ("route", "form", "code"),
    [
        ("signup", {"email": "bo@example.com", "password": "short"}, "too_short"),
        ("signup", {"email": "bo@example.com", "password": "password1"}, "common"),
        ("signup", {"email": "not an address", "password": PW}, "invalid_email"),
    ],
)
def test_a_form_to_correct_is_one_warning_naming_its_code(
    route: str, form: dict[str, str], code: str
) -> None:
    accounts = ann()
    assert post(accounts, route, **form).status == 400
    entry = one_warning(accounts)
    assert entry.code == "FormError"
    assert entry.message.startswith(f"POST {route} refused the form: {code}")


def test_a_wrong_current_password_and_a_too_short_new_one_are_warnings() -> None:
    accounts = ann()
    sign_in(accounts, ANN, PW)
    logged(accounts)
    wrong = post(accounts, "change-password", current_password="nope", new_password=PW + "!")
    assert wrong.status == 400
    assert "wrong_password" in one_warning(accounts).message
    short = post(accounts, "change-password", current_password=PW, new_password="short")
    assert short.status == 400
    assert "too_short" in one_warning(accounts).message


def test_a_reset_for_an_unknown_address_is_one_warning() -> None:
    accounts = ann()
    post(accounts, "forgot-password", email="nobody@example.com")
    entry = one_warning(accounts)
    assert entry.code == "no-account"
    assert "nobody" not in str(entry)  # the address typed is not logged
    post(accounts, "forgot-password", email=ANN)
    assert logged(accounts) == []  # a reset link sent: nothing to report


def test_a_sign_up_with_a_taken_address_is_one_warning() -> None:
    accounts = ann()
    post(accounts, "signup", email=ANN, password="another passphrase")
    assert one_warning(accounts).code == "account-exists"


def test_an_expired_or_used_link_is_one_warning() -> None:
    accounts = ann()
    post(accounts, "forgot-password", email=ANN)
    mail = accounts.outbox.last("reset-password")
    fields = {"token": mail.query["token"], "email": ANN}
    assert (
        post(accounts, "reset-password", password="a brand new passphrase", **fields).status == 200
    )
    logged(accounts)
    again = post(accounts, "reset-password", password="yet another passphrase", **fields)
    assert again.location.endswith("error=Verification")
    assert one_warning(accounts).code == "Verification"


def test_a_wrong_second_factor_code_is_one_warning() -> None:
    accounts = ann(two_factor={})
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    uri = b.get(f"{accounts.base}/two-factor-setup", headers={"accept": "application/json"})
    code = code_for(uri.json()["uri"], b.clock.now)
    assert post(accounts, "two-factor-setup", action="enable", code=code).status == 200
    b.sign_out()
    sign_in(accounts, ANN, PW)
    logged(accounts)
    assert post(accounts, "two-factor", method="totp", code="000000").status == 400
    assert "invalid_code" in one_warning(accounts).message


def test_a_limit_reached_is_a_warning() -> None:
    accounts = ann(rate_limits={"credentials_per_account": (1, 60)})
    sign_in(accounts, ANN, "wrong one")
    logged(accounts)
    assert sign_in(accounts, ANN, PW).status == 429
    [entry] = logged(accounts)
    assert (entry.level, entry.code) == ("warn", "rate-limited")


def test_a_fault_of_the_server_is_an_error() -> None:
    accounts = ann()

    def down(email: str) -> Any:
        raise ConnectionError("the database is down")

    accounts.adapter.get_user_by_email = down  # type: ignore[method-assign]
    answer = post(accounts, "callback/password", email=ANN, password=PW)
    assert answer.location.endswith("error=Configuration")
    [entry] = logged(accounts)
    assert (entry.level, entry.code) == ("error", "AdapterError")
