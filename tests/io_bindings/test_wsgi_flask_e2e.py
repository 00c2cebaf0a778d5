"""Flask behind ``io_bindings.wsgi.AuthWSGI`` on a real WSGI server (the standard library's,
threaded): credentials, e-mail (real SMTP inbox) and OIDC (the real test OP) sign-ins; the
app's own routes and 404s; the body limit."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from live_server import LiveServer, csrf_token, free_port, serve
from mail_server import MailServer, mail_server, sign_in_link
from wsgi_server import command

from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def mail() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(scope="module")
def server(oidc_op: OpenIDProvider, mail: MailServer) -> Iterator[LiveServer]:
    port = free_port()
    client = oidc_op.register_client([f"http://127.0.0.1:{port}/auth/callback/op"])
    env = {"E2E_SMTP_PORT": str(mail.port), "E2E_OP_ISSUER": oidc_op.issuer,
           "E2E_OP_CLIENT_ID": client.client_id,
           "E2E_OP_CLIENT_SECRET": client.client_secret or ""}  # fmt: skip
    with serve(command("flask_app:app", port), port, env=env) as live:
        yield live
        log = live.log
    assert "Traceback" not in log, log


@pytest.fixture
def browser(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url) as client:
        yield client


def test_credentials_sign_in(browser: httpx.Client) -> None:
    assert browser.get("/").text == "anonymous"
    assert browser.get("/private").status_code == 401
    form = {"csrfToken": csrf_token(browser), "username": "ann", "password": "pw"}
    response = browser.post("/auth/callback/credentials", data=form)
    assert response.status_code == 302
    assert browser.get("/").text == "signed in as ann@example.com"
    assert browser.get("/private").text == "secret page"
    signed_out = browser.post("/auth/signout", data={"csrfToken": csrf_token(browser)})
    assert signed_out.status_code == 302
    assert browser.get("/").text == "anonymous"


def test_wrong_password_is_refused(browser: httpx.Client) -> None:
    form = {"csrfToken": csrf_token(browser), "username": "ann", "password": "nope"}
    response = browser.post("/auth/callback/credentials", data=form)
    assert "error=CredentialsSignin" in response.headers["location"]
    assert browser.get("/").text == "anonymous"


def test_email_sign_in(browser: httpx.Client, mail: MailServer) -> None:
    address = "wsgi-reader@example.com"
    start = browser.post(
        "/auth/signin/email", data={"csrfToken": csrf_token(browser), "email": address}
    )
    assert start.status_code == 302
    assert "/auth/verify-request" in start.headers["location"]
    link = sign_in_link(mail.inbox.next_for(address))
    assert browser.get(link).status_code == 302
    assert browser.get("/").text == f"signed in as {address}"


def test_oidc_sign_in(browser: httpx.Client, oidc_op: OpenIDProvider) -> None:
    start = browser.post("/auth/signin/op", data={"csrfToken": csrf_token(browser)})
    assert start.status_code == 302
    with httpx.Client() as op_browser:
        answer = oidc_op.login(op_browser, start.headers["location"])
    assert answer.send(browser).status_code == 302
    assert browser.get("/").text == f"signed in as {oidc_op.account.email}"


def test_other_paths_go_to_flask(browser: httpx.Client) -> None:
    assert browser.get("/nowhere").status_code == 404
    assert "Not Found" in browser.get("/nowhere").text  # Flask's page, not ours
    assert browser.get("/auth/nowhere").status_code == 400  # ours: an unknown auth action


def test_a_body_over_the_limit_is_refused(browser: httpx.Client) -> None:
    response = browser.post("/auth/callback/credentials", content=b"x" * (64 * 1024 + 1))
    assert response.status_code == 413


def test_headers_over_the_limit_are_refused_by_the_binding(browser: httpx.Client) -> None:
    """70 KiB of headers in 90 lines (the standard library's server takes at most 100 lines
    of 64 KiB each): AuthWSGI answers 431 before the engine."""
    headers = {f"x-pad-{i}": "x" * 800 for i in range(90)}
    response = browser.get("/auth/session", headers=headers)
    assert response.status_code == 431
    assert response.text == "Request Header Fields Too Large"
    assert browser.get("/", headers=headers).status_code == 200  # Flask's routes: not ours
