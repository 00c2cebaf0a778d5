"""The security page in a real browser on the Django example (ASGI and WSGI): a session opened
in a second browser is listed and ended from the first; an account at the local OpenID
Provider is linked and unlinked again."""

from __future__ import annotations

import pytest
from live_server import LiveServer
from mail_server import MailServer, sign_in_link
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions

from tests.browser.conftest import browser, second_browser, wait
from tests.browser.security_steps import end_the_other_session, greeting, link_and_unlink
from tests.oidc_op.provider import OpenIDProvider

__all__ = ["browser", "second_browser"]
pytestmark = pytest.mark.e2e


def sign_in_with_password(browser: webdriver.Chrome, site: LiveServer) -> None:
    browser.get(site.url + "/")
    browser.find_element(By.ID, "username").send_keys("demo")
    browser.find_element(By.ID, "password").send_keys("demo")
    browser.find_element(By.ID, "credentials-submit").click()
    wait(browser).until(lambda b: greeting(b) == "Signed in as Demo User")


def test_a_session_in_another_browser_is_listed_and_ended(
    browser: webdriver.Chrome, second_browser: webdriver.Chrome, site: LiveServer
) -> None:
    sign_in_with_password(browser, site)
    sign_in_with_password(second_browser, site)
    security = site.url + "/auth/security"
    end_the_other_session(browser, second_browser, site.url, security, "Signed in as Demo User")


def test_linking_and_unlinking_an_account_at_the_openid_provider(
    browser: webdriver.Chrome, site: LiveServer, smtp: MailServer, oidc_op: OpenIDProvider
) -> None:
    address = f"reader-{site.url.rsplit(':', 1)[1]}@example.com"  # one per server (asgi, wsgi)
    browser.get(site.url + "/")
    browser.find_element(By.CSS_SELECTOR, "input[name=email]").send_keys(address)
    browser.find_element(By.XPATH, "//button[text()='Send me a link']").click()
    wait(browser).until(expected_conditions.url_contains("/auth/verify-request"))
    browser.get(sign_in_link(smtp.inbox.next_for(address)))
    wait(browser).until(lambda b: greeting(b) == f"Signed in as {address}")
    security = site.url + "/auth/security"
    link_and_unlink(browser, oidc_op, site.url, security, f"Signed in as {address}")
