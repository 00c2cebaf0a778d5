"""``python examples/aiohttp_app.py`` served for real (aiohttp's ``run_app``), with every
provider on: credentials, e-mail (to a real SMTP inbox, users in SQLite) and OpenID
Connect (the test OP), signed in through ``routes()``; the protections and sign-out."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import httpx
import pytest
from live_server import ROOT, LiveServer, csrf_token, free_port, serve
from mail_server import MailServer, mail_server, sign_in_link

from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]
pytestmark = pytest.mark.e2e
SECRET = "aiohttp-example-e2e-secret-0123456789abcdef"
SESSION_COOKIE = "authjs.session-token"
CRASHES = ("Error handling request", "unexpected failure serving", "Traceback")


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(scope="module")
def site(
    oidc_op: OpenIDProvider, smtp: MailServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    port = free_port()
    client = oidc_op.register_client([f"http://127.0.0.1:{port}/api/auth/callback/op"])
    env = {
        "PORT": str(port),
        "AUTH_SECRET": SECRET,
        "AUTH_TRUST_HOST": "true",
        "EXAMPLE_DB": str(tmp_path_factory.mktemp("aiohttp-example") / "auth.db"),
        "EXAMPLE_OIDC_ISSUER": oidc_op.issuer,
        "AUTH_OP_ID": client.client_id,
        "AUTH_OP_SECRET": client.client_secret or "",
        "EXAMPLE_SMTP_PORT": str(smtp.port),
        "EXAMPLE_UPDATE_AGE": "0",  # every session read re-issues the cookie
    }
    command = [sys.executable, str(ROOT / "examples" / "aiohttp_app.py")]
    with serve(command, port, env=env) as live:
        yield live
        log = live.log
    for crash in CRASHES:
        assert crash not in log, log


@pytest.fixture
def http(site: LiveServer) -> Iterator[httpx.Client]:
    """A browser with its own cookie jar; redirects are not followed."""
    with httpx.Client(base_url=site.url, timeout=15) as http:
        yield http


def me(http: httpx.Client) -> object:
    response = http.get("/me")
    assert response.status_code == 200, response.text
    return response.json()["session"]


def sign_in_with_password(http: httpx.Client, password: str = "demo") -> httpx.Response:
    form = {"csrfToken": csrf_token(http, "/api/auth"), "username": "demo", "password": password}
    return http.post("/api/auth/callback/credentials", data=form)


def test_auth_routes_under_the_default_prefix(http: httpx.Client, site: LiveServer) -> None:
    assert set(http.get("/api/auth/providers").json()) == {"credentials", "email", "op"}
    page = http.get("/api/auth/signin")
    assert page.status_code == 200
    assert f'action="{site.url}/api/auth/callback/credentials"' in page.text
    assert http.get("/api/auth/session").json() is None
    assert http.get("/auth/session").status_code == 404
    assert "Not signed in" in http.get("/").text


def test_credentials_sign_in_and_the_pages(http: httpx.Client, site: LiveServer) -> None:
    for path in ("/protected", "/account/", "/account/settings", "/dashboard"):
        response = http.get(path)
        assert response.status_code == 302, path
        location = httpx.URL(response.headers["location"])  # the sign-in page, and back
        assert (location.path, location.params["callbackUrl"]) == ("/api/auth/signin", path)
    response = sign_in_with_password(http)
    assert response.status_code == 302
    assert response.headers["location"] == site.url
    assert "Signed in as Demo User" in http.get("/").text
    for path in ("/protected", "/account/settings", "/dashboard"):
        page = http.get(path)
        assert page.status_code == 200, path
        assert "Signed in as Demo User" in page.text
        assert any(c.startswith(f"{SESSION_COOKIE}=") for c in page.headers.get_list("set-cookie"))


def test_a_wrong_password_signs_nobody_in(http: httpx.Client, site: LiveServer) -> None:
    response = sign_in_with_password(http, "nope")
    assert response.status_code == 302
    assert response.headers["location"].startswith(f"{site.url}/api/auth/signin?error=")
    assert SESSION_COOKIE not in http.cookies
    assert http.get("/protected").status_code == 302


def test_sign_out(http: httpx.Client, site: LiveServer) -> None:
    sign_in_with_password(http)
    assert http.get("/api/auth/signout").status_code == 200  # the confirmation page
    response = http.post("/api/auth/signout", data={"csrfToken": csrf_token(http, "/api/auth")})
    assert response.status_code == 302
    assert SESSION_COOKIE not in http.cookies
    assert me(http) is None
    assert http.get("/protected").status_code == 302


def test_oidc_sign_in(http: httpx.Client, oidc_op: OpenIDProvider, site: LiveServer) -> None:
    start = http.post("/api/auth/signin/op", data={"csrfToken": csrf_token(http, "/api/auth")})
    assert start.status_code == 302, start.text
    assert start.headers["location"].startswith(oidc_op.authorization_endpoint)
    with httpx.Client(timeout=15) as op_browser:
        answer = oidc_op.login(op_browser, start.headers["location"])
    assert answer.redirect_uri == f"{site.url}/api/auth/callback/op"
    callback = answer.send(http)
    assert callback.status_code == 302, callback.text
    session = me(http)
    assert isinstance(session, dict)
    assert session["user"]["email"] == oidc_op.account.email
    assert http.get("/protected").status_code == 200


def test_email_sign_in(http: httpx.Client, smtp: MailServer, site: LiveServer) -> None:
    form = {"csrfToken": csrf_token(http, "/api/auth"), "email": "Ann@Example.com"}
    response = http.post("/api/auth/signin/email", data=form)
    assert response.status_code == 302
    assert response.headers["location"].startswith(f"{site.url}/api/auth/verify-request")
    link = sign_in_link(smtp.inbox.next_for("ann@example.com"))
    assert link.startswith(f"{site.url}/api/auth/callback/email?")
    assert http.get(link).status_code == 302
    session = me(http)
    assert isinstance(session, dict)
    assert session["user"]["email"] == "ann@example.com"
    assert http.get(link).headers["location"].startswith(f"{site.url}/api/auth/error")  # once


def test_large_bodies_are_refused(http: httpx.Client) -> None:
    response = http.post("/api/auth/callback/credentials", content=b"x" * (65 * 1024))
    assert response.status_code == 413
