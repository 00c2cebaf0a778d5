"""The examples through real servers: FastAPI under uvicorn, Starlette under hypercorn -k
trio. Credentials, e-mail and OIDC sign-ins through ``handlers`` and through ``sign_in``;
``auth(request)``, ``auth()``, ``@auth`` and the dependencies; the middleware's four
outcomes and its cookie refresh; ``sign_out``; ``unstable_update``."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from live_server import LiveServer, free_port, submit_sign_in_form
from mail_server import MailServer, mail_server, sign_in_link

from tests.io_bindings.starlette.e2e import browser_client, serve_example, sign_in_with_password
from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]
pytestmark = pytest.mark.e2e
SESSION = "authjs.session-token"


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(scope="module", params=["fastapi", "starlette"])
def site(
    request: pytest.FixtureRequest,
    oidc_op: OpenIDProvider,
    smtp: MailServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LiveServer]:
    """Each example under its server, with all its providers."""
    port = free_port()
    client = oidc_op.register_client([f"http://127.0.0.1:{port}/api/auth/callback/op"])
    env = {
        "EXAMPLE_OIDC_ISSUER": oidc_op.issuer,
        "AUTH_OP_ID": client.client_id,
        "AUTH_OP_SECRET": client.client_secret or "",
        "EXAMPLE_SMTP_PORT": str(smtp.port),
        "EXAMPLE_UPDATE_AGE": "0",  # every session read re-issues the cookie
    }
    db = tmp_path_factory.mktemp(request.param) / "auth.db"
    with serve_example(request.param, db, env, port=port) as live:
        yield live


@pytest.fixture
def http(site: LiveServer) -> Iterator[httpx.Client]:
    with browser_client(site) as http:
        yield http


def session_of(http: httpx.Client) -> object:
    return http.get("/api/auth/session").json()


def test_handlers_serve_the_auth_routes(http: httpx.Client) -> None:
    assert http.get("/api/auth/csrf").json()["csrfToken"]
    providers = {"credentials", "email", "password", "passkey", "op"}
    assert set(http.get("/api/auth/providers").json()) == providers
    assert "text/html" in http.get("/api/auth/signin").headers["content-type"]
    assert session_of(http) is None


def test_signed_out(http: httpx.Client, site: LiveServer) -> None:
    assert "Not signed in" in http.get("/").text
    assert http.get("/api/whoami").json() == {"session": None}
    me = http.get("/api/me")
    assert (me.status_code, me.json()) == (401, {"detail": "Not signed in"})


def test_the_middleware_outcomes(http: httpx.Client, site: LiveServer) -> None:
    refused = http.get("/dashboard")  # False: to the sign-in page
    assert refused.status_code == 302
    assert refused.headers["location"] == (
        f"{site.url}/api/auth/signin?callbackUrl={site.url.replace(':', '%3A').replace('/', '%2F')}"
        "%2Fdashboard"
    )
    custom = http.get("/admin/stats")  # a Response
    assert (custom.status_code, custom.json()) == (401, {"error": "sign in first"})
    short = http.get("/me")  # a URL
    assert (short.status_code, short.headers["location"]) == (302, f"{site.url}/dashboard")
    assert http.get("/").status_code == 200  # True
    sign_in_with_password(http)
    assert http.get("/dashboard").status_code == 200
    assert http.get("/admin/stats").json() == {"user": "demo@example.com"}


def test_signed_out_browsers_land_on_the_sign_in_page_and_come_back(
    http: httpx.Client, site: LiveServer
) -> None:
    """Followed as a browser does: the middleware's refusal ends on the engine's sign-in page
    (200); signing in with its form goes back to the page asked for."""
    page = http.get("/dashboard?tab=2", follow_redirects=True)
    assert page.status_code == 200, page.text
    assert [r.status_code for r in page.history] == [302]
    assert page.url.path == "/api/auth/signin"
    assert page.url.params["callbackUrl"] == f"{site.url}/dashboard?tab=2"
    back = submit_sign_in_form(
        http, page.text, "/callback/credentials", username="demo", password="demo"
    )
    assert (back.url.path, back.url.params["tab"]) == ("/dashboard", "2")
    assert "demo@example.com" in back.text


def test_credentials_sign_in_with_sign_in(http: httpx.Client, site: LiveServer) -> None:
    answer = sign_in_with_password(http, redirectTo="/dashboard")
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == f"{site.url}/dashboard"
    assert http.cookies.get(SESSION)
    assert "demo@example.com" in http.get("/dashboard").text  # auth(request) / @auth
    assert "Signed in as Demo User" in http.get("/").text  # auth() / @auth
    assert http.get("/api/me").json()["user"]["email"] == "demo@example.com"
    assert http.get("/api/whoami").json()["session"]["user"]["name"] == "Demo User"


def test_wrong_password_raises_credentials_signin(http: httpx.Client) -> None:
    answer = sign_in_with_password(http, password="nope")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/?error=CredentialsSignin&code=credentials"
    assert SESSION not in http.cookies
    assert "Sign-in failed (CredentialsSignin)" in http.get(answer.headers["location"]).text


def test_credentials_through_the_handlers(http: httpx.Client, site: LiveServer) -> None:
    token = http.get("/api/auth/csrf").json()["csrfToken"]
    form = {"csrfToken": token, "username": "demo", "password": "demo", "callbackUrl": "/"}
    answer = http.post("/api/auth/callback/credentials", data=form)
    assert (answer.status_code, answer.headers["location"]) == (302, f"{site.url}/")
    assert session_of(http)["user"]["name"] == "Demo User"  # type: ignore[index]


def test_the_middleware_reissues_the_session_cookie(http: httpx.Client) -> None:
    sign_in_with_password(http)
    for path in ("/", "/api/me"):
        cookies = http.get(path).headers.get_list("set-cookie")
        assert any(c.startswith(f"{SESSION}=") for c in cookies), (path, cookies)


def test_unstable_update_changes_the_session(http: httpx.Client) -> None:
    sign_in_with_password(http)
    answer = http.post("/name", data={"name": "Renamed Person"})
    assert answer.status_code == 303
    assert session_of(http)["user"]["name"] == "Renamed Person"  # type: ignore[index]
    assert "Signed in as Renamed Person" in http.get("/").text


def test_sign_out(http: httpx.Client, site: LiveServer) -> None:
    sign_in_with_password(http)
    answer = http.post("/signout")
    assert (answer.status_code, answer.headers["location"]) == (303, f"{site.url}/")
    assert SESSION not in http.cookies
    assert session_of(http) is None


def test_cross_site_posts_are_refused(http: httpx.Client) -> None:
    form = {"provider": "credentials", "username": "demo", "password": "demo"}
    answer = http.post("/signin", data=form, headers={"origin": "http://evil.test"})
    assert answer.status_code == 403
    assert SESSION not in http.cookies


def test_oidc_sign_in(http: httpx.Client, oidc_op: OpenIDProvider, site: LiveServer) -> None:
    start = http.post("/signin", data={"provider": "op", "redirectTo": "/dashboard"})
    assert start.status_code == 303
    assert start.headers["location"].startswith(oidc_op.authorization_endpoint)
    with httpx.Client(timeout=15) as op_browser:
        answer = oidc_op.login(op_browser, start.headers["location"])
    callback = answer.send(http)
    assert callback.status_code == 302, callback.text
    assert callback.headers["location"] == f"{site.url}/dashboard"
    assert http.get("/api/me").json()["user"]["email"] == oidc_op.account.email


def test_email_sign_in(http: httpx.Client, smtp: MailServer, site: LiveServer) -> None:
    answer = http.post("/signin", data={"provider": "email", "email": "Ann@Example.com"})
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(f"{site.url}/api/auth/verify-request")
    link = sign_in_link(smtp.inbox.next_for("ann@example.com"))
    assert link.startswith(f"{site.url}/api/auth/callback/email?")
    assert http.get(link).status_code == 302
    assert http.get("/api/me").json()["user"]["email"] == "ann@example.com"
