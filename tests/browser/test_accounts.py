"""Password accounts and two-factor in a real browser (Chromium) on the FastAPI example and
the Django example (ASGI), each on SQLite and on PostgreSQL, against a real SMTP
inbox: sign up, verify the address, set up TOTP (the test computes the codes from the page's
``otpauth://`` URI), sign out, sign in and answer the challenge, use a recovery code, reset
the password."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from db_servers import PostgresServer, postgres_cluster
from live_server import free_port
from mail_server import MailServer, mail_server, sign_in_link
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions

from sansio_auth.totp import secret_key, totp
from tests.browser.conftest import wait
from tests.io_bindings.django.conftest import serve_example as serve_django_example
from tests.io_bindings.starlette.e2e import serve_example

pytestmark = pytest.mark.e2e

ADDRESS = "ann@example.com"
PASSWORD = "correct horse battery staple"
NEW_PASSWORD = "a completely new passphrase"


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with postgres_cluster() as server:
        yield server


@dataclass(frozen=True)
class Site:
    url: str
    base: str
    """Where the auth routes are."""


EXAMPLES = {
    "fastapi-sqlite": ("fastapi", "/api/auth", None),
    "fastapi-postgres": ("fastapi", "/api/auth", "postgres"),
    "django-sqlite": ("django", "/auth", None),
    "django-postgres": ("django", "/auth", "postgres"),
}


@pytest.fixture(params=sorted(EXAMPLES))
def site(
    request: pytest.FixtureRequest, smtp: MailServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    framework, base, database = EXAMPLES[request.param]
    db = tmp_path_factory.mktemp("accounts") / "auth.db"
    env = {"EXAMPLE_SMTP_PORT": str(smtp.port), "EXAMPLE_DB": str(db)}
    dsn = None
    if database == "postgres":
        server: PostgresServer = request.getfixturevalue("postgres")
        dsn = env["EXAMPLE_POSTGRES"] = server.create_database()
    if framework == "fastapi":
        serving = serve_example("fastapi", db, env)
    else:
        serving = serve_django_example("asgi", free_port(), env)
    with serving as live:
        yield Site(live.url, live.url + base)
    if dsn is not None:
        server.drop_database(dsn)


def text(browser: webdriver.Chrome) -> str:
    return browser.find_element(By.TAG_NAME, "body").text


def wait_for_text(browser: webdriver.Chrome, needle: str) -> None:
    wait(browser, 15).until(lambda b: needle in text(b))


def fill(browser: webdriver.Chrome, field_id: str, value: str) -> None:
    element = browser.find_element(By.ID, field_id)
    element.clear()
    element.send_keys(value)


def click(browser: webdriver.Chrome, label: str) -> None:
    browser.find_element(By.XPATH, f"//button[normalize-space()='{label}']").click()


def code(uri: str, at: float) -> str:
    secret = dict(parse_qsl(urlsplit(uri).query))["secret"]
    return totp(secret_key(secret), at)


def sign_in(browser: webdriver.Chrome, site: Site, password: str) -> None:
    browser.get(f"{site.base}/signin")
    fill(browser, "input-email-for-password-provider", ADDRESS)
    fill(browser, "input-password-for-password-provider", password)
    click(browser, "Sign in with Password")


def sign_out(browser: webdriver.Chrome, site: Site) -> None:
    browser.get(f"{site.url}/")
    browser.find_element(By.CSS_SELECTOR, "form[action='/signout'] button").click()
    wait_for_text(browser, "Not signed in")


def test_accounts_in_a_browser(
    browser: webdriver.Chrome, site: Site, smtp: MailServer, tmp_path: Path
) -> None:
    # sign up: "check your email", and the verification link arrives
    browser.get(f"{site.url}/")
    browser.find_element(By.ID, "signup").click()
    wait_for_text(browser, "Create an account")
    fill(browser, "input-email", ADDRESS)
    fill(browser, "input-password", PASSWORD)
    click(browser, "Create account")
    wait_for_text(browser, "verify your email address")
    mail = smtp.inbox.next_for(ADDRESS)
    assert mail.message["Subject"].startswith("Verify your email address")
    browser.get(sign_in_link(mail))
    wait_for_text(browser, "Email address verified")

    # sign in, set up the authenticator app from the QR code's URI
    sign_in(browser, site, PASSWORD)
    wait_for_text(browser, "Signed in as")
    browser.find_element(By.ID, "two-factor").click()
    wait_for_text(browser, "Scan this QR code")
    assert browser.find_element(By.CSS_SELECTOR, ".qr svg") is not None
    uri = browser.find_element(By.CSS_SELECTOR, "[data-totp-uri]").get_attribute("href")
    assert uri is not None
    assert uri.startswith("otpauth://totp/")
    enrolled_at = time.time()
    fill(browser, "input-code", code(uri, enrolled_at))
    click(browser, "Turn on")
    wait_for_text(browser, "Your recovery codes")
    codes = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "[data-recovery-codes] code")]
    assert len(codes) == 10
    sign_out(browser, site)

    # sign in again: no session until the second factor (the next step's code: this one's
    # was used to set up, and a code is good once)
    sign_in(browser, site, PASSWORD)
    wait_for_text(browser, "Two-factor authentication")
    assert browser.get_cookie("authjs.session-token") is None
    fill(browser, "input-code", code(uri, enrolled_at + 30))
    click(browser, "Verify")
    wait_for_text(browser, "Signed in as")
    sign_out(browser, site)

    # a recovery code instead
    sign_in(browser, site, PASSWORD)
    wait_for_text(browser, "Use a recovery code")
    browser.find_element(By.XPATH, "//summary[normalize-space()='Use a recovery code']").click()
    fill(browser, "input-recovery_code", codes[0])
    click(browser, "Use recovery code")
    wait_for_text(browser, "Signed in as")
    sign_out(browser, site)

    # forgotten password: the reset link, a new password, the old one refused
    browser.get(f"{site.base}/signin")
    browser.find_element(By.LINK_TEXT, "Forgot your password?").click()
    fill(browser, "input-email", ADDRESS)
    click(browser, "Send reset link")
    wait_for_text(browser, "choose a new password")
    reset = smtp.inbox.next_for(ADDRESS)
    assert reset.message["Subject"].startswith("Reset your password")
    browser.get(sign_in_link(reset))
    fill(browser, "input-password", NEW_PASSWORD)
    click(browser, "Set password")
    wait_for_text(browser, "Password changed")
    sign_in(browser, site, PASSWORD)
    wait(browser, 15).until(expected_conditions.url_contains("error=CredentialsSignin"))
    sign_in(browser, site, NEW_PASSWORD)
    wait_for_text(browser, "Use a recovery code")
    browser.find_element(By.XPATH, "//summary[normalize-space()='Use a recovery code']").click()
    fill(browser, "input-recovery_code", codes[1])
    click(browser, "Use recovery code")
    wait_for_text(browser, "Signed in as")
    # the reset link worked once
    browser.get(sign_in_link(reset))
    fill(browser, "input-password", "yet another passphrase")
    click(browser, "Set password")
    wait(browser, 15).until(expected_conditions.url_contains("error=Verification"))
