"""The built-in pages in a real browser: sign in through the form, see the session, sign out;
sign in by e-mail with the link from the demo's dev inbox; sign in with the demo's own
OpenID Provider (authorization code, PKCE, ID token) through its consent page."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from live_server import LiveServer
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.wait import WebDriverWait

from io_bindings.demo import DEMO_LOGIN, OP_PATH

pytestmark = pytest.mark.e2e

USERNAME_FIELD = "input-username-for-credentials-provider"
PASSWORD_FIELD = "input-password-for-credentials-provider"
EMAIL_FIELD = "input-email-for-email-provider"


def wait_for_url(browser: webdriver.Chrome, url: str) -> None:
    WebDriverWait(browser, 15).until(expected_conditions.url_to_be(url))


def submit_credentials(browser: webdriver.Chrome, username: str, password: str) -> None:
    """Fill in and submit the credentials form of the sign-in page that is open."""
    browser.find_element(By.ID, USERNAME_FIELD).send_keys(username)
    browser.find_element(By.ID, PASSWORD_FIELD).send_keys(password)
    browser.find_element(By.XPATH, "//button[text()='Sign in with Credentials']").click()


def body_text(browser: webdriver.Chrome) -> str:
    return browser.find_element(By.TAG_NAME, "body").text


def test_sign_in_see_the_session_and_sign_out(browser: webdriver.Chrome, demo: LiveServer) -> None:
    home = demo.url + "/"
    browser.get(f"{demo.url}/auth/signin?callbackUrl={quote(home, safe='')}")

    form = browser.find_element(By.XPATH, f"//form[.//input[@id='{PASSWORD_FIELD}']]")
    assert form.get_attribute("action") == f"{demo.url}/auth/callback/credentials"
    assert form.get_attribute("method") == "post"
    assert browser.find_element(By.ID, PASSWORD_FIELD).get_attribute("type") == "password"
    csrf = form.find_element(By.NAME, "csrfToken").get_attribute("value")
    assert csrf is not None
    assert len(csrf) == 64
    submit_credentials(browser, *DEMO_LOGIN)

    wait_for_url(browser, home)
    text = body_text(browser)
    assert "You are signed in" in text
    assert "Demo User" in browser.find_element(By.TAG_NAME, "pre").text
    assert browser.get_cookie("authjs.session-token") is not None

    browser.get(demo.url + "/protected")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Protected page"
    assert "Hello, Demo User!" in body_text(browser)

    browser.get(demo.url + "/auth/signout")
    browser.find_element(By.XPATH, "//button[text()='Sign out']").click()
    wait_for_url(browser, home)  # back to the callback URL the sign-in remembered
    assert "You are not signed in" in body_text(browser)
    assert browser.find_element(By.TAG_NAME, "pre").text == "null"
    assert browser.get_cookie("authjs.session-token") is None

    browser.get(demo.url + "/protected")
    assert browser.current_url == f"{demo.url}/auth/signin?callbackUrl=%2Fprotected"


def test_protected_page_sends_to_sign_in_and_back(
    browser: webdriver.Chrome, demo: LiveServer
) -> None:
    browser.get(demo.url + "/protected")
    assert browser.current_url.startswith(f"{demo.url}/auth/signin?")
    submit_credentials(browser, *DEMO_LOGIN)
    wait_for_url(browser, demo.url + "/protected")
    assert "Hello, Demo User!" in body_text(browser)


def test_wrong_password_shows_the_error(browser: webdriver.Chrome, demo: LiveServer) -> None:
    browser.get(demo.url + "/auth/signin")
    submit_credentials(browser, DEMO_LOGIN[0], "not-the-password")
    wait_for_url(browser, f"{demo.url}/auth/signin?error=CredentialsSignin&code=credentials")
    error = browser.find_element(By.CLASS_NAME, "error").text
    assert error == "Sign in failed. Check the details you provided are correct."
    assert browser.get_cookie("authjs.session-token") is None
    assert browser.find_element(By.ID, USERNAME_FIELD).is_displayed()


def test_sign_in_by_email_through_the_dev_inbox(
    browser: webdriver.Chrome, demo: LiveServer
) -> None:
    home = demo.url + "/"
    browser.get(f"{demo.url}/auth/signin?callbackUrl={quote(home, safe='')}")
    browser.find_element(By.ID, EMAIL_FIELD).send_keys("reader@example.com")
    browser.find_element(By.XPATH, "//button[text()='Sign in with Email']").click()
    wait_for_url(browser, f"{demo.url}/auth/verify-request?provider=email&type=email")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Check your email"

    browser.get(demo.url + "/dev/inbox")
    mail = browser.find_element(By.CLASS_NAME, "mail")
    assert mail.find_element(By.CLASS_NAME, "to").text == "reader@example.com"
    link = mail.find_element(By.CLASS_NAME, "link")
    url = link.get_attribute("href")
    assert url is not None
    assert url.startswith(f"{demo.url}/auth/callback/email?")
    link.click()

    wait_for_url(browser, home)  # the callback URL the sign-in page remembered
    assert "You are signed in" in body_text(browser)
    assert "reader@example.com" in browser.find_element(By.TAG_NAME, "pre").text
    browser.get(demo.url + "/protected")
    assert "Hello, reader@example.com!" in body_text(browser)

    browser.get(url)  # the link works once
    wait_for_url(browser, f"{demo.url}/auth/error?error=Verification")
    assert "The sign in link is no longer valid." in body_text(browser)


def test_sign_in_with_the_demo_provider(browser: webdriver.Chrome, demo: LiveServer) -> None:
    home = demo.url + "/"
    browser.get(f"{demo.url}/auth/signin?callbackUrl={quote(home, safe='')}")
    button = "//button[normalize-space()='Sign in with the demo provider']"
    browser.find_element(By.XPATH, button).click()

    WebDriverWait(browser, 15).until(expected_conditions.url_contains(f"{OP_PATH}/authorize?"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Demo provider"
    assert "code_challenge_method=S256" in browser.current_url
    name = browser.find_element(By.ID, "name")
    name.clear()
    name.send_keys("Grace Hopper")
    email = browser.find_element(By.ID, "email")
    email.clear()
    email.send_keys("grace@demo-op.example")
    browser.find_element(By.XPATH, "//button[text()='Allow']").click()

    wait_for_url(browser, home)  # code → token → ID token checked → session → callback URL
    assert "You are signed in" in body_text(browser)
    session = browser.find_element(By.TAG_NAME, "pre").text
    assert "Grace Hopper" in session
    assert "grace@demo-op.example" in session
    browser.get(demo.url + "/protected")
    assert "Hello, Grace Hopper!" in body_text(browser)
