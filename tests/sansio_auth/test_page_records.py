"""Every answer that shows a built-in page carries it as data (:class:`~sansio_auth.http.Page`:
its name and context), the context alone draws the same HTML (so a template of one's own
can show what the page shows), and ``docs/reference/pages.md`` lists each page's name and
context keys as the engine makes them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from sansio_auth import Theme
from sansio_auth.i18n import ENGLISH
from sansio_auth.pages import RENDERERS, render
from tests.sansio_auth.accounts_peer import build, code_for, sign_in, sign_up, verify

ANN, PW = "ann@example.com", "correct horse battery"
DOC = Path(__file__).parents[2] / "docs" / "reference" / "pages.md"


@pytest.fixture(scope="module")
def answers() -> list[Any]:
    """The engine's answers as a person goes through every page: sign-up, verification, a
    reset link, the account and security pages, two-factor set-up, its challenge, and a
    rate limit's refusal."""
    accounts = build(two_factor={}, rate_limits={"credentials_per_account": (3, 900)})
    b, base = accounts.browser, accounts.base

    def post(route: str, **form: str) -> Any:
        return b.post(f"{base}/{route}", form={"csrfToken": b.csrf_token(), **form})

    for route in ("signin", "signout", "verify-request?type=reset", "error", "signup"):
        b.get(f"{base}/{route}")
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)  # the "verified" notice
    b.get(f"{base}/forgot-password")
    post("forgot-password", email=ANN)
    b.get(accounts.outbox.last("reset-password").path)
    sign_in(accounts, ANN, PW)
    for route in ("security", "change-password", "change-email", "two-factor-setup"):
        b.get(f"{base}/{route}")
    uri = b.get(f"{base}/two-factor-setup", headers={"accept": "application/json"}).json()["uri"]
    post("two-factor-setup", action="enable", code=code_for(uri, b.clock.now))  # the codes
    b.get(f"{base}/two-factor-setup")  # on: the management page
    b.sign_out()
    sign_in(accounts, ANN, PW)
    b.get(f"{base}/two-factor")  # the challenge
    other = b.another()
    for _ in range(4):
        sign_in(accounts, "zed@example.com", "wrong", browser=other)
    return [response for _, response in [*b.history, *other.history]]


def shows_html(response: Any) -> bool:
    return (response.header("content-type") or "").startswith("text/html")


def test_every_page_answer_carries_its_page(answers: list[Any]) -> None:
    pages = [r for r in answers if shows_html(r)]
    assert {r.page.name for r in pages} == set(RENDERERS)
    for response in pages:
        html = render(response.page, Theme(), ENGLISH)
        assert html.encode() == response.body, response.page.name
    assert all(r.page is None for r in answers if not shows_html(r))


def test_a_rate_limit_s_refusal_is_a_page_too(answers: list[Any]) -> None:
    [limited] = [r for r in answers if r.status == 429]
    assert limited.page.name == "rate-limited"
    assert 0 < limited.page.context["retry_after"] <= 900


def documented() -> dict[str, set[str]]:
    """The reference's table: each page name and its context keys."""
    rows = re.findall(r"^\| `([a-z-]+)` \| [^|]* \| ([^|]+) \|$", DOC.read_text(), re.M)
    return {name: set(re.findall(r"`(\w+)`", keys)) for name, keys in rows}


def test_the_reference_lists_each_page_and_its_keys(answers: list[Any]) -> None:
    made: dict[str, set[str]] = {}
    for response in answers:
        if response.page is not None:
            made.setdefault(response.page.name, set()).update(response.page.context)
    assert documented() == made
