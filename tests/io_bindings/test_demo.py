"""The demo (``python -m io_bindings.demo``) starts and serves its pages; e-mail sign-in
through the console sender and the dev inbox; its data dir keeps the secret and the database."""

from __future__ import annotations

import html
import re
import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from live_server import LiveServer, free_port, serve

from io_bindings.db.sqlite import SQLiteAdapter
from io_bindings.demo import DEMO_LOGIN, INBOX_PATH

pytestmark = pytest.mark.e2e


def test_home_page_names_the_demo_user(demo_server: LiveServer) -> None:
    page = httpx.get(demo_server.url + "/")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert "not signed in" in page.text
    assert f"<b>{DEMO_LOGIN[0]}</b>, password <b>{DEMO_LOGIN[1]}</b>" in page.text


def test_protected_page_redirects_when_signed_out(demo_server: LiveServer) -> None:
    response = httpx.get(demo_server.url + "/protected")
    assert response.status_code == 302
    assert response.headers["location"] == "/auth/signin?callbackUrl=%2Fprotected"
    assert httpx.get(demo_server.url + "/nowhere").status_code == 404


def test_signed_in_user_sees_the_protected_page(demo_server: LiveServer) -> None:
    with httpx.Client(base_url=demo_server.url) as browser:
        token = browser.get("/auth/csrf").json()["csrfToken"]
        username, password = DEMO_LOGIN
        form = {"csrfToken": token, "username": username, "password": password}
        signed_in = browser.post(
            "/auth/callback/credentials", data={**form, "callbackUrl": "/protected"}
        )
        assert signed_in.headers["location"] == demo_server.url + "/protected"
        protected = browser.get("/protected")
        assert protected.status_code == 200
        assert "Hello, Demo User!" in protected.text
        home = browser.get("/")
        assert "You are <b>signed in</b>" in home.text
        assert "demo@example.com" in home.text


def test_wrong_password_is_refused(demo_server: LiveServer) -> None:
    with httpx.Client(base_url=demo_server.url) as browser:
        token = browser.get("/auth/csrf").json()["csrfToken"]
        form = {"csrfToken": token, "username": DEMO_LOGIN[0], "password": "nope"}
        refused = browser.post("/auth/callback/credentials", data=form)
        assert "error=CredentialsSignin" in refused.headers["location"]
        assert browser.get("/protected").status_code == 302


def request_link(browser: httpx.Client, address: str) -> None:
    form = {"csrfToken": browser.get("/auth/csrf").json()["csrfToken"], "email": address}
    asked = browser.post("/auth/signin/email", data={**form, "callbackUrl": "/protected"})
    assert asked.status_code == 302
    assert asked.headers["location"].endswith("/auth/verify-request?provider=email&type=email")


def test_email_link_is_printed_and_shown_in_the_dev_inbox(demo_server: LiveServer) -> None:
    home = httpx.get(demo_server.url + "/")
    assert f'<a href="{INBOX_PATH}">dev inbox</a>' in home.text
    with httpx.Client(base_url=demo_server.url) as browser:
        request_link(browser, "Visitor@Example.com")
        inbox = browser.get(INBOX_PATH)
        assert inbox.status_code == 200
        links = re.findall(r'<a class="link" href="([^"]+)">', inbox.text)
        assert links
        link = html.unescape(links[0])
        assert link.startswith(demo_server.url + "/auth/callback/email?")
        assert "email=visitor%40example.com" in link
        assert '<b class="to">visitor@example.com</b>' in inbox.text
        assert f"[auth] sign-in link for visitor@example.com: {link}" in demo_server.log

        signed_in = browser.get(link)
        assert signed_in.headers["location"] == demo_server.url + "/protected"
        assert "Hello, visitor@example.com!" in browser.get("/protected").text
        assert browser.get(link).headers["location"].endswith("/auth/error?error=Verification")


def serve_demo(
    directory: Path, port: int | None = None, **env: str
) -> AbstractContextManager[LiveServer]:
    port = port or free_port()
    command = [sys.executable, "-m", "io_bindings.demo"]
    return serve(command, port, env={"PORT": str(port), "DEMO_DIR": str(directory), **env})


def inbox_links(browser: httpx.Client) -> list[str]:
    """The sign-in links on the dev inbox page, newest first."""
    page = browser.get(INBOX_PATH).text
    return [html.unescape(link) for link in re.findall(r'<a class="link" href="([^"]+)">', page)]


def test_the_secret_and_the_database_survive_a_restart(tmp_path: Path) -> None:
    """Without AUTH_SECRET the demo keeps a generated secret in its data dir, so a session
    cookie stays valid; a link asked for before the restart works after it (its token is
    in SQLite, not in memory)."""
    directory, port = tmp_path / "data", free_port()  # one port: the link names its origin
    with (
        serve_demo(directory, port, AUTH_SECRET="") as first,
        httpx.Client(base_url=first.url) as browser,
    ):
        assert (directory / "auth.db").exists()  # opened (schema made) at start-up
        token = browser.get("/auth/csrf").json()["csrfToken"]
        form = {"csrfToken": token, "username": DEMO_LOGIN[0], "password": DEMO_LOGIN[1]}
        assert browser.post("/auth/callback/credentials", data=form).status_code == 302
        cookie = browser.cookies["authjs.session-token"]
        request_link(browser, "keeper@example.com")
        link = inbox_links(browser)[0]
    secret = directory / "secret"
    assert secret.stat().st_mode & 0o777 == 0o600
    assert len(secret.read_text().strip()) >= 32
    with serve_demo(directory, port, AUTH_SECRET="") as second:
        session = httpx.get(second.url + "/auth/session", cookies={"authjs.session-token": cookie})
        assert session.json()["user"]["name"] == "Demo User"
        with httpx.Client(base_url=second.url) as browser:
            assert browser.get(INBOX_PATH).text.count('class="link"') == 0  # memory is gone
            assert browser.get(link).headers["location"] == second.url + "/protected"
            assert browser.get("/auth/session").json()["user"]["email"] == "keeper@example.com"


def test_database_sessions_mode(tmp_path: Path) -> None:
    """``DEMO_SESSION_STRATEGY=database``: e-mail sign-in only, the session row in SQLite."""
    with serve_demo(tmp_path, DEMO_SESSION_STRATEGY="database") as demo:
        with httpx.Client(base_url=demo.url) as browser:
            page = browser.get("/auth/signin").text
            assert "input-email-for-email-provider" in page
            assert "input-password-for-credentials-provider" not in page
            request_link(browser, "db@example.com")
            assert browser.get(inbox_links(browser)[0]).status_code == 302
            token = browser.cookies["authjs.session-token"]
            assert "Hello, db@example.com!" in browser.get("/protected").text

        async def stored() -> Any:
            async with SQLiteAdapter(tmp_path / "auth.db") as db:
                return await db.get_session_and_user(token)

        found = anyio.run(stored)
        assert found is not None
        assert found["user"]["email"] == "db@example.com"
