"""The demo (``python -m io_bindings.demo``) starts and serves its pages."""

from __future__ import annotations

import httpx
import pytest
from live_server import LiveServer

from io_bindings.demo import DEMO_LOGIN

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
