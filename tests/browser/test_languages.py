"""The pages in the browser's language in Chromium (its ``Accept-Language`` set to German):
the demo's sign-in page, and the passkey script's message, which the page hands it in
German."""

from __future__ import annotations

import pytest
from live_server import LiveServer
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.browser.test_passkeys import BUTTON, localhost, shown_error

pytestmark = pytest.mark.e2e


def test_a_german_browser_gets_german_pages(browser: webdriver.Chrome, demo: LiveServer) -> None:
    browser.execute_cdp_cmd("Network.enable", {})
    german = {"headers": {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}}
    browser.execute_cdp_cmd("Network.setExtraHTTPHeaders", german)
    hide_webauthn = "delete window.PublicKeyCredential"
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": hide_webauthn})
    browser.get(localhost(demo) + "/auth/signin")
    assert browser.title == "Anmelden"
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "de"
    assert browser.find_element(By.ID, BUTTON).text == "Mit Passkey anmelden"
    assert shown_error(browser, "#passkey-form") == "Dieser Browser kann keine Passkeys verwenden."
