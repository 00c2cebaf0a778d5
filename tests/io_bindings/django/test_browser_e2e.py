"""A real Chromium signs in through the ``signin_form`` template tag of the example (ASGI)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from live_server import LiveServer, free_port
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.browser.conftest import browser, wait
from tests.io_bindings.django.conftest import serve_example

__all__ = ["browser"]
pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", params=["asgi", "wsgi"])
def example(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    port = free_port()
    with serve_example(request.param, port, {}) as live:
        yield live


def greeting(browser: webdriver.Chrome) -> str:
    text: str = browser.find_element(By.ID, "greeting").text
    return text


def test_sign_in_and_out_with_the_tag_forms(browser: webdriver.Chrome, example: LiveServer) -> None:
    browser.get(example.url + "/account/")  # protect_prefix: 303 to the sign-in page
    assert browser.current_url == example.url + "/auth/signin?callbackUrl=%2Faccount%2F"
    browser.get(example.url + "/")
    assert greeting(browser) == "Not signed in"
    browser.find_element(By.ID, "username").send_keys("demo")
    browser.find_element(By.ID, "password").send_keys("wrong")
    browser.find_element(By.ID, "credentials-submit").click()
    wait(browser).until(lambda b: "error=CredentialsSignin" in b.current_url)
    assert browser.find_element(By.ID, "error").text == "Sign-in failed (CredentialsSignin)"
    browser.find_element(By.ID, "username").send_keys("demo")
    browser.find_element(By.ID, "password").send_keys("demo")
    browser.find_element(By.ID, "credentials-submit").click()
    wait(browser).until(lambda b: greeting(b) == "Signed in as Demo User")
    browser.get(example.url + "/account/")
    assert browser.find_element(By.ID, "email").text == "demo@example.com"
    browser.find_element(By.CSS_SELECTOR, "form[action='/signout'] button").click()
    wait(browser).until(lambda b: greeting(b) == "Not signed in")
