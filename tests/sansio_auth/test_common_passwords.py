"""Common passwords: the built-in list (Django's, shipped inside the package, decoded without a
file), the rule that refuses them case-insensitively after NFKC, and every place a new
password is set refusing one with the form error ``common``."""

from __future__ import annotations

import builtins
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import passwords
from sansio_auth.errors import Configuration
from sansio_auth.pages.accounts import MESSAGES
from sansio_auth.passwords import common_form, common_passwords, problem
from sansio_auth.providers import Password
from tests.sansio_auth.accounts_peer import Accounts, build, sign_in, sign_up, verify
from tools import common_passwords as tool

ANN, PW = "ann@example.com", "correct horse battery"
ISSUE = ("password", "12345678", "qwertyuiop", "password1")
"""Accepted at sign-up before the list was checked."""
JSON = {"accept": "application/json"}
LIST = sorted(common_passwords())


def test_the_list_is_djangos_and_holds_the_passwords_once_accepted() -> None:
    assert len(LIST) == 19_640
    assert set(ISSUE) <= common_passwords()
    assert all(entry == common_form(entry) and entry for entry in LIST)


def test_the_module_is_what_the_tool_writes_from_the_installed_django() -> None:
    pytest.importorskip("django")
    assert tool.MODULE.read_text() == tool.module_text(tool.entries(tool.django_list()))


def test_the_list_is_decoded_without_opening_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_files(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"the engine opened a file: {args}")

    monkeypatch.setattr(builtins, "open", no_files)
    common_passwords.cache_clear()
    try:
        assert len(common_passwords()) == 19_640
    finally:
        common_passwords.cache_clear()


def test_importing_the_package_does_not_load_the_list() -> None:
    code = "import sys, sansio_auth; print('sansio_auth._common_passwords' in sys.modules)"
    root = str(Path(__file__).parents[2])
    found = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": root},
    ).stdout
    assert found.strip() == "False"


FULL_WIDTH = "".join(chr(ord(c) + 0xFEE0) for c in "PASSWORD1")
"""``PASSWORD1`` in full-width letters, which NFKC makes ASCII."""


@pytest.mark.parametrize("typed", [*ISSUE, "PASSWORD1", " Password1 ", FULL_WIDTH, "QwertyUIOP"])
def test_the_rule_refuses_a_common_password_whatever_its_case_or_width(typed: str) -> None:
    assert problem(typed, common=common_passwords()) == "common"


def test_the_length_rules_come_first() -> None:
    assert problem("qwerty", common=common_passwords()) == "too_short"  # in the list too
    assert problem("", common=common_passwords()) == "missing"
    assert problem("password1", common=()) is None  # no list, no refusal


@given(
    entry=st.sampled_from([e for e in LIST if len(e) >= 8 and e.isascii()]),
    upper=st.lists(st.booleans(), min_size=64, max_size=64),
    pad=st.sampled_from(["", " ", "  "]),
)
def test_any_casing_of_a_listed_password_is_refused(
    entry: str, upper: list[bool], pad: str
) -> None:
    typed = pad + "".join(c.upper() if u else c for c, u in zip(entry, upper, strict=False)) + pad
    assert problem(typed, common=common_passwords()) == "common"


@given(st.text(min_size=8, max_size=40))
def test_a_password_is_refused_as_common_exactly_when_its_form_is_listed(typed: str) -> None:
    refused = problem(typed, common=common_passwords()) == "common"
    length_ok = 8 <= len(passwords.normalize(typed)) <= passwords.MAX_LENGTH
    assert refused == (length_ok and common_form(typed) in common_passwords())


# -- the provider's option ----------------------------------------------------------------------


def test_the_option_is_on_by_default_off_with_false_and_replaced_by_a_collection() -> None:
    assert Password().common is common_passwords()
    assert Password(common_passwords=False).common == frozenset()
    own = Password(common_passwords=["Acme-2024!", " Spring Sale "])
    assert own.common == {"acme-2024!", "spring sale"}
    own.check()


@pytest.mark.parametrize("given_value", ["password1", [1, 2], 42])
def test_a_bad_option_is_refused_at_start_up(given_value: Any) -> None:
    with pytest.raises(Configuration, match="common_passwords"):
        Password(common_passwords=given_value).check()


# -- every place a new password is set ----------------------------------------------------------


def ann(**password: Any) -> Accounts:
    accounts = build(password=password)
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    return accounts


def post(accounts: Accounts, route: str, headers: dict[str, str] | None = None, **form: str) -> Any:
    b = accounts.browser
    return b.post(f"{accounts.base}/{route}", form={"csrfToken": b.csrf_token(), **form},
                  headers=headers or {})  # fmt: skip


def test_sign_up_refuses_a_common_password_on_the_page_and_in_json() -> None:
    accounts = build()
    page = post(accounts, "signup", email=ANN, password="Password1")
    assert page.status == 400
    assert MESSAGES["common"].split(":")[0].encode() in page.body
    script = post(accounts, "signup", JSON, email=ANN, password="qwertyuiop")
    assert (script.status, script.json()) == (400, {"error": "common"})
    assert accounts.adapter.store.users == {}
    assert accounts.outbox.sent == []


def test_reset_and_change_refuse_a_common_password() -> None:
    accounts = ann()
    b = accounts.browser
    post(accounts, "forgot-password", email=ANN)
    mail = accounts.outbox.last("reset-password")
    fields = {"token": mail.query["token"], "email": ANN}
    refused = post(accounts, "reset-password", JSON, password="12345678", **fields)
    assert (refused.status, refused.json()) == (400, {"error": "common"})
    assert (
        post(accounts, "reset-password", password="a brand new passphrase", **fields).status == 200
    )
    sign_in(accounts, ANN, "a brand new passphrase")
    change = {"current_password": "a brand new passphrase", "new_password": "password1"}
    refused = post(accounts, "change-password", JSON, **change)
    assert (refused.status, refused.json()) == (400, {"error": "common"})
    assert b.session() is not None


def test_the_server_side_api_refuses_a_common_password() -> None:
    accounts = build()
    engine, performer = accounts.pair.engine, accounts.pair.performer
    flow = engine.account("create_user", email=ANN, password="password1", name=None, verified=True)
    answer = performer.run(flow)
    assert (answer.status, answer.json()) == (400, {"error": "common"})


def test_off_or_replaced_by_the_apps_own_list() -> None:
    assert sign_up(build(password={"common_passwords": False}), ANN, "password1").status == 302
    own = build(password={"common_passwords": {"Acme-2024!"}})
    assert sign_up(own, ANN, "ACME-2024!").status == 400
    assert sign_up(own, ANN, "password1").status == 302  # the built-in list is replaced


def test_the_breached_hook_still_runs_after_the_list() -> None:
    seen: list[str] = []

    def breached(password: str) -> bool:
        seen.append(password)
        return False

    accounts = build(password={"breached": breached})
    assert sign_up(accounts, ANN, "password1").status == 400
    assert seen == []  # refused by the list: no request to the breach service
    assert sign_up(accounts, ANN, PW).status == 302
    assert seen == [PW]
