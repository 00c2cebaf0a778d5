"""The security page in a real browser, on the FastAPI example under uvicorn and the Starlette
one under hypercorn's trio worker (on SQLite; the FastAPI one on PostgreSQL too): a session
opened in a second browser is listed and ended from the first; an account at the local
OpenID Provider is linked (its real login and consent pages) and unlinked again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from db_servers import postgres_cluster
from live_server import LiveServer
from mail_server import MailServer, sign_in_link
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions

from tests.browser.conftest import wait
from tests.browser.security_steps import end_the_other_session, greeting, link_and_unlink
from tests.io_bindings.starlette.e2e import serve_example
from tests.io_bindings.starlette.test_examples_e2e import site, smtp
from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris", "site", "smtp"]
pytestmark = pytest.mark.e2e


def sign_in_with_password(browser: webdriver.Chrome, site: LiveServer) -> None:
    browser.get(site.url + "/")
    browser.find_element(By.ID, "username").send_keys("demo")
    browser.find_element(By.ID, "password").send_keys("demo")
    browser.find_element(By.ID, "credentials-submit").click()
    wait(browser).until(expected_conditions.url_to_be(site.url + "/dashboard"))


def test_a_session_in_another_browser_is_listed_and_ended(
    browser: webdriver.Chrome, second_browser: webdriver.Chrome, site: LiveServer
) -> None:
    end_one_of_two(browser, second_browser, site)


@pytest.fixture
def postgres_site(smtp: MailServer, tmp_path: Path) -> Iterator[LiveServer]:
    """The FastAPI example on a PostgreSQL database of its own (which then holds the record
    of the session left)."""
    with postgres_cluster() as server:
        dsn = server.create_database()
        env = {"EXAMPLE_SMTP_PORT": str(smtp.port), "EXAMPLE_POSTGRES": dsn}
        with serve_example("fastapi", tmp_path / "unused.db", env) as live:
            yield live
        with psycopg.connect(dsn) as conn:
            assert conn.execute("SELECT count(*) FROM session_records").fetchall() == [(1,)]


def test_a_session_in_another_browser_is_listed_and_ended_on_postgresql(
    browser: webdriver.Chrome, second_browser: webdriver.Chrome, postgres_site: LiveServer
) -> None:
    end_one_of_two(browser, second_browser, postgres_site)


def end_one_of_two(
    browser: webdriver.Chrome, second_browser: webdriver.Chrome, site: LiveServer
) -> None:
    sign_in_with_password(browser, site)
    sign_in_with_password(second_browser, site)
    security = site.url + "/api/auth/security"
    end_the_other_session(browser, second_browser, site.url, security, "Signed in as Demo User")


def test_linking_and_unlinking_an_account_at_the_openid_provider(
    browser: webdriver.Chrome, site: LiveServer, smtp: MailServer, oidc_op: OpenIDProvider
) -> None:
    address = f"reader-{site.url.rsplit(':', 1)[1]}@example.com"  # one per example
    browser.get(site.url + "/")
    browser.find_element(By.ID, "email").send_keys(address)
    browser.find_element(By.XPATH, "//button[text()='E-mail me a link']").click()
    wait(browser).until(expected_conditions.url_contains("/api/auth/verify-request"))
    browser.get(sign_in_link(smtp.inbox.next_for(address)))
    wait(browser).until(lambda b: greeting(b) == f"Signed in as {address}")
    security = site.url + "/api/auth/security"
    link_and_unlink(browser, oidc_op, site.url, security, f"Signed in as {address}")
