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
from selenium.webdriver.support import expected_conditions

from tests.browser.conftest import wait
from tests.browser.security_steps import end_the_other_session, greeting, link_and_unlink
from tests.io_bindings.starlette.e2e import serve_example
from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]
pytestmark = pytest.mark.e2e


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


def test_a_session_in_another_browser_is_listed_and_ended(
    browser: webdriver.Chrome, second_browser: webdriver.Chrome, site: LiveServer
) -> None:
    sign_in_with_password(browser, site)
    sign_in_with_password(second_browser, site)
    security = site.url + "/api/auth/security"
    end_the_other_session(browser, second_browser, site.url, security, "Signed in as Demo User")


def test_linking_and_unlinking_an_account_at_the_openid_provider(
    browser: webdriver.Chrome, site: LiveServer, smtp: MailServer, oidc_op: OpenIDProvider
) -> None:
    browser.get(site.url + "/")
    browser.find_element(By.ID, "email").send_keys("reader@example.com")
    browser.find_element(By.XPATH, "//button[text()='E-mail me a link']").click()
    wait(browser).until(expected_conditions.url_contains("/api/auth/verify-request"))
    browser.get(sign_in_link(smtp.inbox.next_for("reader@example.com")))
    wait(browser).until(lambda b: greeting(b) == "Signed in as reader@example.com")
    security = site.url + "/api/auth/security"
    link_and_unlink(browser, oidc_op, site.url, security, "Signed in as reader@example.com")
