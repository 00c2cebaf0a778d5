"""A real Chromium signs in on the FastAPI example (uvicorn) and reaches ``/dashboard``;
the screenshot of the dashboard is kept in ``tests/artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import ROOT, LiveServer
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.browser.conftest import browser, wait
from tests.io_bindings.starlette.e2e import serve_example

__all__ = ["browser"]
pytestmark = pytest.mark.e2e
ARTIFACTS = ROOT / "tests" / "artifacts"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("fastapi-browser") / "auth.db"
    with serve_example("fastapi", db, {}) as live:
        yield live


def text_of(browser: webdriver.Chrome, element_id: str) -> str:
    text: str = browser.find_element(By.ID, element_id).text
    return text


def test_sign_in_reaches_the_dashboard(browser: webdriver.Chrome, example: LiveServer) -> None:
    browser.get(example.url + "/dashboard")  # `authorized`: to the built-in sign-in page
    assert browser.current_url.startswith(example.url + "/api/auth/signin?callbackUrl=")
    browser.find_element(By.ID, "input-username-for-credentials-provider").send_keys("demo")
    browser.find_element(By.ID, "input-password-for-credentials-provider").send_keys("demo")
    browser.find_element(By.ID, "input-password-for-credentials-provider").submit()
    wait(browser).until(lambda b: b.current_url == example.url + "/dashboard")
    assert text_of(browser, "email") == "demo@example.com"
    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = Path(ARTIFACTS / "fastapi-dashboard.png")
    assert browser.save_screenshot(str(screenshot))
    assert screenshot.stat().st_size > 1000
    browser.get(example.url + "/")
    browser.find_element(By.ID, "name").send_keys("Browser Person")
    browser.find_element(By.ID, "name-submit").click()  # unstable_update
    wait(browser).until(lambda b: text_of(b, "greeting") == "Signed in as Browser Person")
    browser.find_element(By.ID, "signout").click()  # sign_out
    wait(browser).until(lambda b: text_of(b, "greeting") == "Not signed in")


def test_the_server_side_form_and_a_wrong_password(
    browser: webdriver.Chrome, example: LiveServer
) -> None:
    browser.get(example.url + "/")
    browser.find_element(By.ID, "username").send_keys("demo")
    browser.find_element(By.ID, "password").send_keys("wrong")
    browser.find_element(By.ID, "credentials-submit").click()
    wait(browser).until(lambda b: "error=CredentialsSignin" in b.current_url)
    assert text_of(browser, "error") == "Sign-in failed (CredentialsSignin)"
    browser.find_element(By.ID, "username").send_keys("demo")
    browser.find_element(By.ID, "password").send_keys("demo")
    browser.find_element(By.ID, "credentials-submit").click()  # sign_in, redirectTo=/dashboard
    wait(browser).until(lambda b: b.current_url == example.url + "/dashboard")
    assert text_of(browser, "email") == "demo@example.com"
