"""The security page in a real browser, on the FastAPI example under uvicorn: a session opened
in a second browser is listed and ended from the first; an account at the local OpenID
Provider is linked (its real login and consent pages) and unlinked again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from live_server import LiveServer, free_port
from mail_server import MailServer, mail_server, sign_in_link
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions

from tests.browser.conftest import wait
from tests.io_bindings.starlette.e2e import serve_example
from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]
pytestmark = pytest.mark.e2e
SESSION = "authjs.session-token"


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(scope="module")
def site(
    oidc_op: OpenIDProvider, smtp: MailServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """The FastAPI example with its password login, e-mail links and the test OP."""
    port = free_port()
    client = oidc_op.register_client([f"http://127.0.0.1:{port}/api/auth/callback/op"])
    env = {
        "EXAMPLE_OIDC_ISSUER": oidc_op.issuer,
        "AUTH_OP_ID": client.client_id,
        "AUTH_OP_SECRET": client.client_secret or "",
        "EXAMPLE_SMTP_PORT": str(smtp.port),
    }
    db = tmp_path_factory.mktemp("security") / "auth.db"
    with serve_example("fastapi", db, env, port=port) as live:
        yield live


def sign_in_with_password(browser: webdriver.Chrome, site: LiveServer) -> None:
    browser.get(site.url + "/")
    browser.find_element(By.ID, "username").send_keys("demo")
    browser.find_element(By.ID, "password").send_keys("demo")
    browser.find_element(By.ID, "credentials-submit").click()
    wait(browser).until(expected_conditions.url_to_be(site.url + "/dashboard"))


def sessions(browser: webdriver.Chrome) -> list[WebElement]:
    return browser.find_elements(By.CSS_SELECTOR, "li.session")


def greeting(browser: webdriver.Chrome) -> str:
    return browser.find_element(By.ID, "greeting").text


def open_security_page(browser: webdriver.Chrome, site: LiveServer) -> None:
    browser.find_element(By.ID, "security").click()
    wait(browser).until(expected_conditions.url_to_be(site.url + "/api/auth/security"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Security"


def test_a_session_in_another_browser_is_listed_and_ended(
    browser: webdriver.Chrome, second_browser: webdriver.Chrome, site: LiveServer
) -> None:
    sign_in_with_password(browser, site)
    sign_in_with_password(second_browser, site)
    open_security_page(browser, site)
    listed = sessions(browser)
    assert len(listed) == 2
    mine, other = listed
    assert "This device" in mine.text
    assert "This device" not in other.text
    assert "Chrome on Linux" in other.text  # from its User-Agent
    other.find_element(By.XPATH, ".//button[text()='End']").click()
    wait(browser).until(lambda b: len(sessions(b)) == 1)
    assert browser.current_url == site.url + "/api/auth/security"
    assert "This device" in sessions(browser)[0].text

    second_browser.get(site.url + "/")
    assert greeting(second_browser) == "Not signed in"  # the other browser is signed out
    assert second_browser.get_cookie(SESSION) is None
    browser.get(site.url + "/")
    assert greeting(browser) == "Signed in as Demo User"


def sign_in_by_email(browser: webdriver.Chrome, site: LiveServer, smtp: MailServer) -> None:
    browser.get(site.url + "/")
    browser.find_element(By.ID, "email").send_keys("reader@example.com")
    browser.find_element(By.XPATH, "//button[text()='E-mail me a link']").click()
    wait(browser).until(expected_conditions.url_contains("/api/auth/verify-request"))
    browser.get(sign_in_link(smtp.inbox.next_for("reader@example.com")))
    wait(browser).until(lambda b: greeting(b) == "Signed in as reader@example.com")


def log_in_at_the_op(browser: webdriver.Chrome, oidc_op: OpenIDProvider) -> None:
    """The OP's own login and consent pages, as a person fills them in."""
    wait(browser).until(expected_conditions.url_contains(oidc_op.issuer))
    browser.find_element(By.NAME, "login").send_keys(oidc_op.account.sub)
    browser.find_element(By.NAME, "password").send_keys("any")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(browser).until(
        expected_conditions.text_to_be_present_in_element((By.TAG_NAME, "body"), "Continue")
    )
    browser.find_element(By.XPATH, "//button[text()='Continue']").click()


def accounts(browser: webdriver.Chrome) -> list[WebElement]:
    return browser.find_elements(By.CSS_SELECTOR, "li.account")


def test_linking_and_unlinking_an_account_at_the_openid_provider(
    browser: webdriver.Chrome, site: LiveServer, smtp: MailServer, oidc_op: OpenIDProvider
) -> None:
    sign_in_by_email(browser, site, smtp)
    open_security_page(browser, site)
    assert accounts(browser) == []
    assert "No linked accounts." in browser.find_element(By.TAG_NAME, "body").text

    browser.find_element(By.XPATH, "//button[text()='Link Test OP']").click()
    log_in_at_the_op(browser, oidc_op)
    wait(browser, 15).until(expected_conditions.url_to_be(site.url + "/api/auth/security"))
    [linked] = accounts(browser)
    assert linked.get_attribute("data-provider") == "op"
    assert oidc_op.account.sub in linked.text
    unlink = linked.find_element(By.XPATH, ".//button[text()='Unlink']")
    assert unlink.is_enabled()  # the address is a way in too (e-mail links)

    unlink.click()
    wait(browser).until(lambda b: accounts(b) == [])
    assert browser.current_url == site.url + "/api/auth/security"
    browser.get(site.url + "/")
    assert greeting(browser) == "Signed in as reader@example.com"  # still the same user
