"""Password accounts and two-factor in a real browser (Chromium) on the FastAPI example and
the Django example (ASGI), each on SQLite and on PostgreSQL, against a real SMTP
inbox: sign up, verify the address, set up TOTP (the test computes the codes from the page's
``otpauth://`` URI), sign out, sign in and answer the challenge, use a recovery code, reset
the password; add a passkey on the security page and answer the challenge with it (WebDriver's
virtual authenticator), which a browser without that passkey cannot."""

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
from tests.browser.security_steps import SESSION, accounts, greeting, open_security_page
from tests.browser.test_passkeys import add_authenticator
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


def localhost(url: str) -> str:
    return url.replace("//127.0.0.1:", "//localhost:")


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


def sign_up(browser: webdriver.Chrome, site: Site, smtp: MailServer) -> None:
    """Sign up: "check your email", and the verification link arrives and is followed."""
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


def turn_on_two_factor(browser: webdriver.Chrome) -> tuple[str, float, list[str]]:
    """Signed in, set up the authenticator app from the QR code's URI: the URI, when, and
    the recovery codes shown."""
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
    return uri, enrolled_at, codes


def test_accounts_in_a_browser(
    browser: webdriver.Chrome, site: Site, smtp: MailServer, tmp_path: Path
) -> None:
    sign_up(browser, site, smtp)
    sign_in(browser, site, PASSWORD)
    wait_for_text(browser, "Signed in as")
    uri, enrolled_at, codes = turn_on_two_factor(browser)
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


def test_a_passkey_as_second_factor(
    browser: webdriver.Chrome, second_browser: webdriver.Chrome, site: Site, smtp: MailServer
) -> None:
    # on localhost: Chromium refuses an IP address as the passkey's relying party
    site = Site(localhost(site.url), localhost(site.base))
    add_authenticator(browser)
    sign_up(browser, site, smtp)
    sign_in(browser, site, PASSWORD)
    wait_for_text(browser, "Signed in as")
    turn_on_two_factor(browser)

    # the security page adds a passkey to the account, and comes back
    browser.get(f"{site.url}/")
    security = f"{site.base}/security"
    open_security_page(browser, security)
    browser.find_element(By.XPATH, "//button[text()='Add a passkey']").click()
    wait(browser, 15).until(lambda b: [a.get_attribute("data-provider") for a in accounts(b)]
                            == ["password", "passkey"])  # fmt: skip
    assert browser.current_url == security
    [passkey] = browser.get_credentials()
    assert passkey.rp_id == "localhost"
    sign_out(browser, site)

    # the password, then the passkey: signed in. The authenticator lends the passkey only
    # at the challenge: on the sign-in page, the passkey form's autofill request would get it
    # at once from Chromium's virtual authenticator, and sign in with the passkey alone
    browser.remove_all_credentials()
    sign_in(browser, site, PASSWORD)
    wait_for_text(browser, "Use a passkey")
    assert browser.get_cookie(SESSION) is None
    browser.add_credential(passkey)
    click(browser, "Use a passkey")
    wait_for_text(browser, "Signed in as")
    assert browser.get_cookie(SESSION) is not None
    assert browser.get_credentials()[0].sign_count > passkey.sign_count

    # another browser knows the password, but its authenticator holds no passkey of the user's
    add_authenticator(second_browser)
    sign_in(second_browser, site, PASSWORD)
    wait_for_text(second_browser, "Use a passkey")
    challenge = second_browser.current_url
    click(second_browser, "Use a passkey")
    error = second_browser.find_element(
        By.CSS_SELECTOR, "#two-factor-passkey [data-webauthn-error]"
    )
    wait(second_browser, 20).until(lambda _: error.is_displayed())
    assert error.text == "The passkey request was cancelled or timed out. Try again."
    assert second_browser.current_url == challenge
    assert second_browser.get_cookie(SESSION) is None
    second_browser.get(f"{site.url}/")
    assert greeting(second_browser) == "Not signed in"
