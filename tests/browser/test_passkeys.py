"""Passkeys on the demo's sign-in page in Chromium, with WebDriver's virtual authenticator:
register one, sign out, sign in again with it (through the browser's autofill request and
through the button), add a second one while signed in; a second browser whose
authenticator holds no passkey is refused; a browser without WebAuthn is told so.

The page is opened as ``localhost``: Chromium refuses an IP address as the relying party id.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from live_server import LiveServer
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.wait import WebDriverWait

pytestmark = pytest.mark.e2e

EMAIL_FIELD = "input-email-for-passkey-provider"
BUTTON = "submitButton-passkey"
SIGN_UP = "registerButton-passkey"
ADDRESS = "passkey-user@example.com"


def localhost(demo: LiveServer) -> str:
    return demo.url.replace("//127.0.0.1:", "//localhost:")


def add_authenticator(browser: webdriver.Chrome) -> None:
    """A platform authenticator that keeps discoverable credentials and verifies its user."""
    browser.add_virtual_authenticator(
        VirtualAuthenticatorOptions(
            protocol=VirtualAuthenticatorOptions.Protocol.CTAP2,
            transport=VirtualAuthenticatorOptions.Transport.INTERNAL,
            has_resident_key=True,
            has_user_verification=True,
            is_user_verified=True,
        )
    )


def wait_for_url(browser: webdriver.Chrome, url: str) -> None:
    WebDriverWait(browser, 20).until(lambda b: b.current_url == url)


def session_text(browser: webdriver.Chrome) -> str:
    return browser.find_element(By.TAG_NAME, "pre").text


def press_passkey_button(browser: webdriver.Chrome, email: str, button: str = BUTTON) -> None:
    browser.find_element(By.ID, EMAIL_FIELD).send_keys(email)
    browser.find_element(By.ID, button).click()


COUNT_SETTLED_REQUESTS = """
const get = navigator.credentials.get.bind(navigator.credentials);
window.settledRequests = 0;
const settled = () => { window.settledRequests += 1; };
navigator.credentials.get = (options) => {
  const request = get(options);
  request.then(settled, settled);
  return request;
};
"""


def count_settled_requests(browser: webdriver.Chrome) -> None:
    """From the next page on, ``window.settledRequests`` counts the ended ``get`` requests."""
    source = {"source": COUNT_SETTLED_REQUESTS}
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", source)


def wait_for_the_autofill_request(browser: webdriver.Chrome) -> None:
    """Until the page's autofill request has ended (with no passkey to offer, Chromium's
    virtual authenticator declines it at once)."""
    WebDriverWait(browser, 20).until(
        lambda b: b.execute_script("return window.settledRequests") == 1
    )
    form = browser.find_element(By.ID, "passkey-form")
    assert form.get_attribute("data-webauthn-pending") is None


def shown_error(browser: webdriver.Chrome, form: str) -> str:
    """The message the page shows under ``form`` (once it shows one)."""
    error = browser.find_element(By.CSS_SELECTOR, f"{form} [data-webauthn-error]")
    WebDriverWait(browser, 20).until(lambda _: error.is_displayed())
    return str(error.text)


def wait_until_replaced(browser: webdriver.Chrome, element: WebElement) -> None:
    """Wait until the page ``element`` is on has been navigated away from. Chromium reports a
    node of the old document either as stale or as not belonging to the document, depending
    on how far the navigation got: both mean it is gone."""

    def gone(_: webdriver.Chrome) -> bool:
        try:
            element.is_enabled()
        except WebDriverException:
            return True
        return False

    WebDriverWait(browser, 20).until(gone)


def sign_out(browser: webdriver.Chrome, site: str) -> None:
    browser.get(site + "/auth/signout")
    browser.find_element(By.XPATH, "//button[text()='Sign out']").click()
    wait_for_url(browser, site + "/")
    assert session_text(browser) == "null"


def test_register_a_passkey_sign_out_and_sign_in_with_it(
    browser: webdriver.Chrome, second_browser: webdriver.Chrome, demo: LiveServer
) -> None:
    site = localhost(demo)
    home = site + "/"
    sign_in = f"{site}/auth/signin?callbackUrl={quote(home, safe='')}"
    add_authenticator(browser)

    # as the home page says, the first time the sign-up button registers a passkey for the
    # address and signs the user in
    browser.get(home)
    said = browser.find_element(By.XPATH, "//p[b='passkey']").text
    first_time = re.search(r"the first time, type an e-mail address and press (.+?) \(", said)
    assert first_time is not None, said
    browser.get(sign_in)
    form = browser.find_element(By.ID, "passkey-form")
    assert form.get_attribute("action") == f"{site}/auth/callback/passkey"
    assert browser.find_element(By.ID, EMAIL_FIELD).get_attribute("autocomplete") == (
        "username webauthn"
    )
    assert browser.find_element(By.ID, SIGN_UP).text == first_time[1]
    press_passkey_button(browser, ADDRESS, SIGN_UP)
    wait_for_url(browser, home)
    assert ADDRESS in session_text(browser)
    [credential] = browser.get_credentials()
    assert credential.is_resident_credential
    assert credential.rp_id == "localhost"
    assert credential.sign_count >= 1
    sign_out(browser, site)

    # the browser's autofill (conditional UI) request: Chromium's virtual authenticator
    # answers it as soon as the page asks, with the one passkey it holds
    browser.get(sign_in)
    wait_for_url(browser, home)
    assert ADDRESS in session_text(browser)
    sign_out(browser, site)

    # the button: the authenticator holds no passkey until the page's autofill request is
    # over (Chromium's virtual authenticator would answer it at once), so pressing the
    # button is what signs in
    [passkey] = browser.get_credentials()
    browser.remove_all_credentials()
    count_settled_requests(browser)
    browser.get(sign_in)
    wait_for_the_autofill_request(browser)
    browser.add_credential(passkey)
    press_passkey_button(browser, ADDRESS)
    wait_for_url(browser, home)
    assert ADDRESS in session_text(browser)
    assert browser.get_cookie("authjs.session-token") is not None

    # signed in, the demo's home page adds a passkey to the account: not a second one on
    # this authenticator (the server lists the account's passkeys to exclude) ...
    add_passkey = "//button[text()='Add a passkey']"
    browser.find_element(By.XPATH, add_passkey).click()
    shown = shown_error(browser, "#add-passkey")
    assert shown == "This device already holds a passkey for this account."
    assert [c.id for c in browser.get_credentials()] == [passkey.id]
    # ... but one on another authenticator (this one, its passkey put aside)
    browser.remove_all_credentials()
    browser.get(home)
    button = browser.find_element(By.XPATH, add_passkey)
    button.click()
    wait_until_replaced(browser, button)
    wait_for_url(browser, home)  # back from the callback, not on the error page
    [second] = browser.get_credentials()
    assert second.id != passkey.id
    sign_out(browser, site)
    browser.get(sign_in)  # the autofill request signs in with the only passkey held: the new one
    wait_for_url(browser, home)
    assert ADDRESS in session_text(browser)

    # another browser, its authenticator empty: the same address gets no passkey to sign in
    add_authenticator(second_browser)
    second_browser.get(sign_in)
    press_passkey_button(second_browser, ADDRESS)
    shown = shown_error(second_browser, "#passkey-form")
    assert shown == "The passkey request was cancelled or timed out. Try again."
    assert second_browser.current_url == sign_in
    assert second_browser.get_cookie("authjs.session-token") is None
    assert second_browser.get_credentials() == []
    second_browser.get(home)
    assert session_text(second_browser) == "null"


def test_a_browser_without_webauthn_is_told_so(browser: webdriver.Chrome, demo: LiveServer) -> None:
    hide_webauthn = "delete window.PublicKeyCredential"
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": hide_webauthn})
    browser.get(localhost(demo) + "/auth/signin")
    assert shown_error(browser, "#passkey-form") == "This browser cannot use passkeys."
    assert not browser.find_element(By.ID, BUTTON).is_enabled()
    # the other ways to sign in are untouched
    assert browser.find_element(By.ID, "input-email-for-email-provider").is_enabled()


def test_an_ip_address_is_no_relying_party(browser: webdriver.Chrome, demo: LiveServer) -> None:
    """Opened as 127.0.0.1 the relying party id is an IP address, which Chromium refuses
    (a SecurityError): the page says passkeys cannot be used there."""
    add_authenticator(browser)
    browser.get(demo.url + "/auth/signin")
    assert demo.url.startswith("http://127.0.0.1:")
    press_passkey_button(browser, ADDRESS)
    assert shown_error(browser, "#passkey-form") == "Passkeys cannot be used at this address."
    assert browser.get_credentials() == []
