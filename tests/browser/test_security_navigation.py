"""The security page as a person moves around it in Chromium: on the FastAPI example (SQLite,
a real SMTP inbox) its links lead to the password, address and two-factor pages, each of
which leads back, and one leads back to the site; on a site of password accounts only
(``tests/support/password_only_app.py``) the "Unlink" of the user's password, their last
way in, is disabled, says why, and looks disabled in the light and the dark theme."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import SERVERS, free_port, serve
from mail_server import MailServer
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions

from tests.browser.conftest import wait
from tests.browser.security_steps import accounts, open_security_page, sessions
from tests.browser.test_accounts import PASSWORD, Site, sign_in, sign_up, smtp, wait_for_text
from tests.io_bindings.email_sign_in import new_database
from tests.io_bindings.starlette.e2e import serve_example

__all__ = ["smtp"]
pytestmark = pytest.mark.e2e

DISABLED = {"light": "rgba(228, 228, 231, 1)", "dark": "rgba(33, 38, 45, 1)"}
"""The disabled button's background in each theme (``--color-disabled``)."""


@pytest.fixture
def site(smtp: MailServer, tmp_path: Path) -> Iterator[Site]:
    db = tmp_path / "auth.db"
    with serve_example("fastapi", db, {"EXAMPLE_SMTP_PORT": str(smtp.port)}) as live:
        yield Site(live.url, live.url + "/api/auth")


def heading(browser: webdriver.Chrome) -> str:
    text: str = browser.find_element(By.TAG_NAME, "h1").text
    return text


def test_the_security_page_leads_to_the_account_pages_and_back(
    browser: webdriver.Chrome, site: Site, smtp: MailServer
) -> None:
    sign_up(browser, site, smtp)
    sign_in(browser, site, PASSWORD)
    wait_for_text(browser, "Signed in as")
    security = f"{site.base}/security"
    open_security_page(browser, security)
    pages = {
        "Change password": ("change-password", "Change your password"),
        "Change email": ("change-email", "Change your email"),
        "Two-factor authentication": ("two-factor-setup", "Set up two-factor authentication"),
    }
    for label, (route, title) in pages.items():
        browser.find_element(By.LINK_TEXT, label).click()
        wait(browser).until(expected_conditions.url_to_be(f"{site.base}/{route}"))
        assert heading(browser) == title
        browser.find_element(By.LINK_TEXT, "Back to security settings").click()
        wait(browser).until(expected_conditions.url_to_be(security))
    two_factor = browser.find_element(By.CSS_SELECTOR, "li[data-link='two-factor']")
    assert two_factor.text.splitlines() == ["Two-factor authentication", "Off"]
    host = site.url.partition("://")[2]
    back = browser.find_element(By.ID, "back-to-site")
    assert back.text == f"Back to {host}"
    back.click()
    wait(browser).until(expected_conditions.url_to_be(site.url + "/"))
    wait_for_text(browser, "Signed in as")


@pytest.fixture
def password_only(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``tests/support/password_only_app.py`` on SQLite: its URL."""
    port = free_port()
    with (
        new_database("sqlite", request, tmp_path_factory) as database,
        serve(SERVERS["uvicorn"]("password_only_app:app", port), port,
              env={"E2E_DATABASE": database}) as live,
    ):  # fmt: skip
        yield live.url


def test_the_last_way_in_cannot_be_unlinked_and_looks_it(
    browser: webdriver.Chrome, password_only: str
) -> None:
    browser.get(f"{password_only}/auth/signup")
    browser.find_element(By.ID, "input-email").send_keys("ann@example.com")
    browser.find_element(By.ID, "input-password").send_keys(PASSWORD)
    browser.find_element(By.XPATH, "//button[text()='Create account']").click()
    wait(browser).until(lambda b: b.get_cookie("authjs.session-token") is not None)
    browser.get(f"{password_only}/auth/security")
    [password] = accounts(browser)  # the user's only way in
    unlink = password.find_element(By.TAG_NAME, "button")
    assert not unlink.is_enabled()
    assert "Your last way to sign in" in password.text  # said, not only in a tooltip
    end = sessions(browser)[0].find_element(By.TAG_NAME, "button")  # "Sign out": enabled
    assert end.is_enabled()
    for scheme in ("light", "dark"):
        feature = {"name": "prefers-color-scheme", "value": scheme}
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [feature]})
        assert unlink.value_of_css_property("background-color") == DISABLED[scheme]
        assert unlink.value_of_css_property("cursor") == "not-allowed"
        assert end.value_of_css_property("background-color") == "rgba(52, 109, 241, 1)"
        assert unlink.value_of_css_property("color") != end.value_of_css_property("color")
