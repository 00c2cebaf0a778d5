"""What a person does on the security page, in Chromium, on any of the examples: end a session
opened in another browser; link an account at the local OpenID Provider (its real login and
consent pages) and unlink it. Each example's test signs in its own way and calls these."""

from __future__ import annotations

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions

from tests.browser.conftest import wait
from tests.oidc_op.provider import OpenIDProvider

SESSION = "authjs.session-token"


def greeting(browser: webdriver.Chrome) -> str:
    text: str = browser.find_element(By.ID, "greeting").text
    return text


def sessions(browser: webdriver.Chrome) -> list[WebElement]:
    return browser.find_elements(By.CSS_SELECTOR, "li.session")


def accounts(browser: webdriver.Chrome) -> list[WebElement]:
    return browser.find_elements(By.CSS_SELECTOR, "li.account")


def open_security_page(browser: webdriver.Chrome, url: str) -> None:
    """Follow the site's "Security" link to the security page at ``url``."""
    browser.find_element(By.ID, "security").click()
    wait(browser).until(expected_conditions.url_to_be(url))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Security"


def end_the_other_session(browser: webdriver.Chrome, other: webdriver.Chrome, site: str,
                          security: str, signed_in_as: str) -> None:  # fmt: skip
    """Both browsers are signed in as one user: ``browser`` ends ``other``'s session from its
    security page at ``security``; ``other`` is signed out at the site's home ``site``."""
    browser.get(site + "/")
    open_security_page(browser, security)
    listed = sessions(browser)
    assert len(listed) == 2
    mine, theirs = listed
    assert "This device" in mine.text
    assert "This device" not in theirs.text
    assert "Chrome on Linux" in theirs.text  # from its User-Agent
    theirs.find_element(By.XPATH, ".//button[text()='End']").click()
    wait(browser).until(lambda b: len(sessions(b)) == 1)
    assert browser.current_url == security
    assert "This device" in sessions(browser)[0].text

    other.get(site + "/")
    assert greeting(other) == "Not signed in"  # the other browser is signed out
    assert other.get_cookie(SESSION) is None
    browser.get(site + "/")
    assert greeting(browser) == signed_in_as


def log_in_at_the_op(browser: webdriver.Chrome, op: OpenIDProvider) -> None:
    """The OP's own login and consent pages, as a person fills them in."""
    wait(browser).until(expected_conditions.url_contains(op.issuer))
    browser.find_element(By.NAME, "login").send_keys(op.account.sub)
    browser.find_element(By.NAME, "password").send_keys("any")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(browser).until(
        expected_conditions.text_to_be_present_in_element((By.TAG_NAME, "body"), "Continue")
    )
    browser.find_element(By.XPATH, "//button[text()='Continue']").click()


def link_and_unlink(browser: webdriver.Chrome, op: OpenIDProvider, site: str, security: str,
                    signed_in_as: str) -> None:  # fmt: skip
    """A user signed in by e-mail (no linked account) links their account at ``op`` from the
    security page and unlinks it again (their address stays a way in)."""
    open_security_page(browser, security)
    assert accounts(browser) == []
    assert "No linked accounts." in browser.find_element(By.TAG_NAME, "body").text

    browser.find_element(By.XPATH, "//button[text()='Link Test OP']").click()
    log_in_at_the_op(browser, op)
    wait(browser, 15).until(expected_conditions.url_to_be(security))
    [linked] = accounts(browser)
    assert linked.get_attribute("data-provider") == "op"
    assert op.account.sub in linked.text
    unlink = linked.find_element(By.XPATH, ".//button[text()='Unlink']")
    assert unlink.is_enabled()  # the address is a way in too (e-mail links)

    unlink.click()
    wait(browser).until(lambda b: accounts(b) == [])
    assert browser.current_url == security
    browser.get(site + "/")
    assert greeting(browser) == signed_in_as  # still the same user
