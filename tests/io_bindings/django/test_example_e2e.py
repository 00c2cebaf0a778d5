"""The example project through real servers, ASGI (uvicorn) and WSGI (runserver): the auth
routes served by ``handle``, the tag-rendered forms posting to ``sign_in``/``sign_out``
with both CSRF tokens, ``request.auth()`` in sync and async views, the protections, and
credentials, e-mail and OpenID Connect sign-ins."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
from live_server import LiveServer
from mail_server import MailServer, sign_in_link

from tests.io_bindings.django.forms import form_for, forms, sign_in_with_password
from tests.oidc_op.provider import OpenIDProvider

pytestmark = pytest.mark.e2e
SESSION_COOKIE = "authjs.session-token"


def whoami(http: httpx.Client, path: str = "/whoami") -> object:
    response = http.get(path)
    assert response.status_code == 200, response.text
    return response.json()["session"]


def test_auth_routes_are_served_by_handle(http: httpx.Client) -> None:
    csrf = http.get("/auth/csrf")
    assert csrf.status_code == 200
    assert csrf.json()["csrfToken"]
    assert "authjs.csrf-token=" in csrf.headers["set-cookie"]
    providers = {"credentials", "email", "password", "passkey", "op"}
    assert set(http.get("/auth/providers").json()) == providers
    page = http.get("/auth/signin")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert http.get("/auth/session").json() is None
    assert http.get("/nowhere").status_code == 404  # not an auth route: Django's 404


def test_the_raw_path_decides(http: httpx.Client, request: pytest.FixtureRequest) -> None:
    """ASGI gives the path as sent: ``/%61uth/...`` is not under ``/auth`` (Django's 404).
    ``runserver`` gives only the decoded path, re-encoded: ``/auth/session`` (documented)."""
    expected = 404 if request.node.callspec.params["site"] == "asgi" else 200
    assert http.get("/%61uth/session").status_code == expected


def test_signed_out_views_see_none(http: httpx.Client) -> None:
    assert whoami(http, "/whoami") is None
    assert whoami(http, "/awhoami") is None


def test_credentials_sign_in_through_the_tag_form(http: httpx.Client) -> None:
    response = sign_in_with_password(http)
    assert response.status_code == 303, response.text
    assert response.headers["location"] == f"{http.base_url}".rstrip("/") + "/"
    assert http.cookies.get(SESSION_COOKIE)
    for path in ("/whoami", "/awhoami"):
        session = whoami(http, path)
        assert isinstance(session, dict)
        assert session["user"]["email"] == "demo@example.com"
    assert "Signed in as Demo User" in http.get("/").text


def test_redirect_to_defaults_to_the_form_page(http: httpx.Client, site: LiveServer) -> None:
    response = sign_in_with_password(http, referer=f"{site.url}/account/")
    assert response.headers["location"] == f"{site.url}/account/"


def test_wrong_password_goes_back_to_the_form_page(http: httpx.Client, site: LiveServer) -> None:
    response = sign_in_with_password(http, password="nope", referer=f"{site.url}/?tab=1")
    assert response.status_code == 303
    assert response.headers["location"] == "/?tab=1&error=CredentialsSignin&code=credentials"
    assert SESSION_COOKIE not in http.cookies
    assert "Sign-in failed (CredentialsSignin)" in http.get(response.headers["location"]).text
    # without a Referer (or another site's), the engine's own sign-in page
    response = sign_in_with_password(http, password="nope", referer="http://evil.test/")
    assert response.headers["location"] == (
        f"{site.url}/auth/signin?error=CredentialsSignin&code=credentials"
    )


def test_both_csrf_tokens_are_checked(http: httpx.Client) -> None:
    form = form_for(http, "credentials")
    login = {"username": "demo", "password": "demo"}
    no_django = {k: v for k, v in form.fields.items() if k != "csrfmiddlewaretoken"}
    assert http.post("/signin", data={**no_django, **login}).status_code == 403
    no_library = {k: v for k, v in form.fields.items() if k != "csrfToken"}
    response = http.post("/signin", data={**no_library, **login})
    assert response.status_code == 303
    assert "error=MissingCSRF" in response.headers["location"]
    assert SESSION_COOKIE not in http.cookies


@pytest.mark.parametrize("provider", ["nope", "../session?x=1#y", "é"])
def test_an_unknown_provider_gets_the_error_page(
    http: httpx.Client, site: LiveServer, provider: str
) -> None:
    form = form_for(http, "credentials")
    response = http.post("/signin", data={**form.fields, "provider": provider})
    assert response.status_code == 303
    assert response.headers["location"] == f"{site.url}/auth/error?error=Configuration"


def test_sign_in_views_take_only_post(http: httpx.Client) -> None:
    assert http.get("/signin").status_code == 405
    assert http.get("/signout").status_code == 405


def test_protect_prefix_redirects_pages_and_posts(http: httpx.Client) -> None:
    for method in ("GET", "POST"):
        for path in ("/account/", "/account/api"):
            response = http.request(method, path)
            assert response.status_code == 303, (method, path)
            assert response.headers["location"] == f"/auth/signin?callbackUrl={quote(path, '')}"
    sign_in_with_password(http)
    assert http.get("/account/").status_code == 200
    assert whoami(http, "/account/api") is not None


def test_auth_required_on_sync_and_async_views(http: httpx.Client) -> None:
    assert http.get("/profile").headers["location"] == "/auth/signin?callbackUrl=%2Fprofile"
    assert http.get("/profile").status_code == 303
    assert http.get("/profile-async").headers["location"] == "/?signin=required"  # its own
    sign_in_with_password(http)
    assert http.get("/profile").json()["session"]["user"]["name"] == "Demo User"
    assert http.get("/profile-async").json()["session"]["user"]["name"] == "Demo User"


def test_signed_out_browsers_land_on_the_sign_in_page_and_come_back(http: httpx.Client) -> None:
    """Followed as a browser does: each protection ends on the engine's sign-in page (200),
    and signing in with its form goes back to the protected page."""
    for path in ("/account/api?x=1", "/account/", "/profile"):
        page = http.get(path, follow_redirects=True)
        assert page.status_code == 200, (path, page.text)
        assert page.url.path == "/auth/signin"
        assert page.url.params["callbackUrl"] == path
    [form] = [f for f in forms(page.text) if f.action.endswith("/auth/callback/credentials")]
    fields = {**form.fields, "username": "demo", "password": "demo"}
    back = http.post(form.action, data=fields, follow_redirects=True)
    assert back.url.path == "/profile"
    assert back.json()["session"]["user"]["name"] == "Demo User"


def test_views_reissue_the_session_cookie(http: httpx.Client) -> None:
    sign_in_with_password(http)
    response = http.get("/whoami")
    cookies = response.headers.get_list("set-cookie")
    assert any(c.startswith(f"{SESSION_COOKIE}=") for c in cookies), cookies


def test_sign_out_through_the_tag_form(http: httpx.Client, site: LiveServer) -> None:
    sign_in_with_password(http)
    form = form_for(http, None, "/account/")
    assert form.fields["redirectTo"] == "/"
    response = http.post(form.action, data=form.fields)
    assert response.status_code == 303
    assert response.headers["location"] == f"{site.url}/"
    assert SESSION_COOKIE not in http.cookies
    assert whoami(http) is None


def test_oidc_sign_in(http: httpx.Client, oidc_op: OpenIDProvider, site: LiveServer) -> None:
    form = form_for(http, "op")
    start = http.post(form.action, data=form.fields)
    assert start.status_code == 303
    assert start.headers["location"].startswith(oidc_op.authorization_endpoint)
    with httpx.Client(timeout=15) as op_browser:
        answer = oidc_op.login(op_browser, start.headers["location"])
    callback = answer.send(http)
    assert callback.status_code == 302, callback.text
    assert callback.headers["location"] == f"{site.url}/"
    session = whoami(http, "/awhoami")
    assert isinstance(session, dict)
    assert session["user"]["email"] == oidc_op.account.email


def test_email_sign_in(http: httpx.Client, smtp: MailServer, site: LiveServer) -> None:
    form = form_for(http, "email")
    response = http.post(form.action, data={**form.fields, "email": "Ann@Example.com"})
    assert response.status_code == 303
    assert response.headers["location"].startswith(f"{site.url}/auth/verify-request")
    link = sign_in_link(smtp.inbox.next_for("ann@example.com"))
    assert link.startswith(f"{site.url}/auth/callback/email?")
    assert http.get(link).status_code == 302
    session = whoami(http)
    assert isinstance(session, dict)
    assert session["user"]["email"] == "ann@example.com"


def test_large_bodies_and_bad_hosts_are_refused(http: httpx.Client) -> None:
    too_big = http.post("/auth/callback/credentials", content=b"x" * (65 * 1024))
    assert too_big.status_code == 413
    # 70 KiB in 90 lines: within what the servers take (the standard library's 100 lines)
    large = http.get("/auth/session", headers={f"x-pad-{i}": "x" * 800 for i in range(90)})
    assert large.status_code == 431
    assert large.text == "Request Header Fields Too Large"
    assert http.get("/auth/session", headers={"host": "evil.example"}).status_code == 400
