"""``AuthApp`` behind real servers (uvicorn and hypercorn-trio): the credentials flow over HTTP."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from e2e_app import MAX_BODY_SIZE
from live_server import LiveServer

pytestmark = pytest.mark.e2e

SESSION = "authjs.session-token"


def csrf_token(client: httpx.Client) -> str:
    """The CSRF token (its cookie lands in the client's jar)."""
    response = client.get("/auth/csrf")
    assert response.status_code == 200
    token: str = response.json()["csrfToken"]
    return token


def sign_in(
    client: httpx.Client,
    username: str,
    password: str,
    *,
    provider: str = "credentials",
    headers: dict[str, str] | None = None,
    **fields: str,
) -> httpx.Response:
    """Post the credentials form as the sign-in page does."""
    form = {"csrfToken": csrf_token(client), "username": username, "password": password, **fields}
    return client.post(f"/auth/callback/{provider}", data=form, headers=headers)


def set_cookies(response: httpx.Response) -> dict[str, str]:
    """``Set-Cookie`` lines of ``response`` by cookie name."""
    return {line.partition("=")[0]: line for line in response.headers.get_list("set-cookie")}


def session_of(client: httpx.Client) -> Any:
    response = client.get("/auth/session")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    return response.json()


def test_csrf_token_and_cookie(client: httpx.Client) -> None:
    response = client.get("/auth/csrf")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "private, no-cache, no-store"
    token = response.json()["csrfToken"]
    assert re.fullmatch("[0-9a-f]{64}", token)
    cookie = set_cookies(response)["authjs.csrf-token"]
    assert cookie.startswith(f"authjs.csrf-token={token}%7C")
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    again = client.get("/auth/csrf")
    assert again.json()["csrfToken"] == token
    assert "set-cookie" not in again.headers


def test_providers_lists_every_provider(client: httpx.Client, server: LiveServer) -> None:
    providers = client.get("/auth/providers").json()
    assert sorted(providers) == ["broken", "credentials", "sync-login"]
    assert providers["credentials"] == {
        "id": "credentials",
        "name": "Password",
        "type": "credentials",
        "signinUrl": f"{server.url}/auth/signin/credentials",
        "callbackUrl": f"{server.url}/auth/callback/credentials",
    }


def test_sign_in_with_async_authorize(client: httpx.Client, server: LiveServer) -> None:
    response = sign_in(client, "alice", "wonderland", callbackUrl="/dashboard")
    assert response.status_code == 302
    assert response.headers["location"] == f"{server.url}/dashboard"
    cookie = set_cookies(response)[SESSION]
    assert re.search(r"; Path=/; Expires=[^;]+ GMT; HttpOnly; SameSite=Lax$", cookie)
    session = session_of(client)
    assert session["user"] == {"name": "Alice", "email": "alice@example.com"}
    assert session["user_id"] == "1"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", session["expires"])


def test_sign_in_with_sync_authorize(client: httpx.Client) -> None:
    response = sign_in(client, "bob", "builder", provider="sync-login")
    assert response.status_code == 302
    session = session_of(client)
    assert session["user"] == {"name": "Bob", "email": "bob@example.com"}
    assert session["user_id"] == "b-2"


@pytest.mark.parametrize("provider", ["credentials", "sync-login"])
def test_wrong_password_goes_back_to_sign_in(
    client: httpx.Client, server: LiveServer, provider: str
) -> None:
    response = sign_in(client, "alice", "not-the-password", provider=provider)
    assert response.status_code == 302
    assert response.headers["location"] == (
        f"{server.url}/auth/signin?error=CredentialsSignin&code=credentials"
    )
    assert SESSION not in set_cookies(response)
    assert session_of(client) is None


def test_credentials_signin_code_from_authorize(client: httpx.Client, server: LiveServer) -> None:
    response = sign_in(client, "locked", "whatever")
    assert response.headers["location"] == (
        f"{server.url}/auth/signin?error=CredentialsSignin&code=locked"
    )
    assert "account locked" in server.log  # the full error is logged, only the code travels


def test_sign_in_without_csrf_token_is_refused(client: httpx.Client, server: LiveServer) -> None:
    csrf_token(client)
    form = {"username": "alice", "password": "wonderland"}
    response = client.post("/auth/callback/credentials", data=form)
    assert response.headers["location"] == f"{server.url}/auth/signin?error=MissingCSRF"
    assert session_of(client) is None


def test_session_update_reaches_the_jwt_callback(client: httpx.Client) -> None:
    sign_in(client, "alice", "wonderland")
    before = client.cookies[SESSION]
    body = {"csrfToken": csrf_token(client), "data": {"nickname": "Ally"}}
    response = client.post("/auth/session", json=body)
    assert response.status_code == 200
    assert response.json()["nickname"] == "Ally"
    assert client.cookies[SESSION] != before  # re-issued with the new claim
    assert session_of(client)["nickname"] == "Ally"


def test_session_update_without_csrf_is_400_null(client: httpx.Client) -> None:
    sign_in(client, "alice", "wonderland")
    response = client.post("/auth/session", json={"data": {"nickname": "Eve"}})
    assert response.status_code == 400
    assert response.json() is None
    assert session_of(client)["nickname"] is None


def test_sign_out_ends_the_session(client: httpx.Client, server: LiveServer) -> None:
    sign_in(client, "alice", "wonderland")
    assert session_of(client) is not None
    form = {"csrfToken": csrf_token(client), "callbackUrl": "/goodbye"}
    response = client.post("/auth/signout", data=form)
    assert response.status_code == 302  # although the sign_out event raised
    assert response.headers["location"] == f"{server.url}/goodbye"
    assert set_cookies(response)[SESSION].startswith(f"{SESSION}=; Max-Age=0;")
    assert SESSION not in client.cookies
    assert session_of(client) is None
    assert "audit log unavailable" in server.log


def test_tampered_session_cookie_is_no_session(client: httpx.Client, server: LiveServer) -> None:
    sign_in(client, "alice", "wonderland")
    value = client.cookies[SESSION]
    flipped = value[:-5] + ("A" if value[-5] != "A" else "B") + value[-4:]
    cookie = {"cookie": f"{SESSION}={flipped}"}
    response = httpx.get(f"{server.url}/auth/session", headers=cookie)
    assert response.json() is None
    assert set_cookies(response)[SESSION].startswith(f"{SESSION}=; Max-Age=0;")


def test_declared_body_over_the_cap_is_413(server: LiveServer) -> None:
    body = b"username=" + b"a" * MAX_BODY_SIZE
    response = httpx.post(
        f"{server.url}/auth/callback/credentials",
        content=body,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 413


def test_streamed_body_over_the_cap_is_413(server: LiveServer) -> None:
    def chunks() -> Any:
        for _ in range(MAX_BODY_SIZE // 1024 + 2):
            yield b"a" * 1024

    response = httpx.post(
        f"{server.url}/auth/callback/credentials",
        content=chunks(),  # chunked transfer encoding: no Content-Length to check up front
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 413


def test_authorize_that_raises_gives_the_error_page(
    client: httpx.Client, server: LiveServer
) -> None:
    response = sign_in(client, "alice", "wonderland", provider="broken")
    assert response.status_code == 302
    location = response.headers["location"]
    assert location == f"{server.url}/auth/error?error=Configuration"
    page = client.get(location)
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert "Server error" in page.text
    assert "on fire" not in page.text
    assert "Traceback" not in page.text
    assert "user database is on fire" in server.log


def test_sign_in_callback_that_raises_denies_access(
    client: httpx.Client, server: LiveServer
) -> None:
    response = sign_in(client, "mallory", "x")
    assert response.headers["location"] == f"{server.url}/auth/error?error=AccessDenied"
    assert SESSION not in set_cookies(response)
    page = client.get(response.headers["location"])
    assert page.status_code == 403
    assert "banned" not in page.text


def test_jwt_callback_that_raises_gives_the_error_page(
    client: httpx.Client, server: LiveServer
) -> None:
    response = sign_in(client, "crash", "x")
    assert response.headers["location"] == f"{server.url}/auth/error?error=Configuration"
    assert SESSION not in set_cookies(response)
    assert session_of(client) is None
    assert "token store unreachable" in server.log


def test_session_callback_that_raises_ends_the_session(client: httpx.Client) -> None:
    sign_in(client, "alice", "wonderland")
    body = {"csrfToken": csrf_token(client), "data": {"nickname": "boom"}}
    response = client.post("/auth/session", json=body)
    assert response.status_code == 200
    assert response.json() is None
    assert set_cookies(response)[SESSION].startswith(f"{SESSION}=; Max-Age=0;")
    assert session_of(client) is None


def test_x_auth_return_redirect_answers_json(client: httpx.Client, server: LiveServer) -> None:
    headers = {"X-Auth-Return-Redirect": "1"}
    response = sign_in(client, "alice", "wonderland", headers=headers, callbackUrl="/next")
    assert response.status_code == 200
    assert response.json() == {"url": f"{server.url}/next"}
    assert SESSION in set_cookies(response)
    refused = sign_in(client, "alice", "wrong", headers=headers)
    assert refused.status_code == 200
    assert refused.json() == {
        "url": f"{server.url}/auth/signin?error=CredentialsSignin&code=credentials"
    }


def test_paths_outside_the_auth_routes(client: httpx.Client) -> None:
    assert client.get("/elsewhere").status_code == 404
    unknown = client.get("/auth/nope")
    assert unknown.status_code == 400
    assert unknown.json() == "Bad request."
    assert client.put("/auth/session").status_code == 400


def test_sign_in_page_lists_the_credentials_forms(client: httpx.Client, server: LiveServer) -> None:
    page = client.get("/auth/signin")
    assert page.status_code == 200
    for provider in ("credentials", "sync-login", "broken"):
        assert f'action="{server.url}/auth/callback/{provider}"' in page.text
        assert f'id="input-username-for-{provider}-provider"' in page.text
    token = client.cookies["authjs.csrf-token"].split("%7C")[0]
    assert f'name="csrfToken" value="{token}"' in page.text


@pytest.mark.parametrize("host", ["[bad", "127.0.0.1:99999"])
def test_malformed_host_header_is_400(server: LiveServer, host: str) -> None:
    response = httpx.get(f"{server.url}/auth/session", headers={"host": host})
    assert response.status_code == 400


# -- request and cookie sizes (issue 21) ---------------------------------------------------------

TOO_LARGE = "Request Header Fields Too Large"


def test_150_header_lines_get_431_from_the_binding(server: LiveServer) -> None:
    headers = {f"x-pad-{i}": "1" for i in range(150)}
    response = httpx.get(f"{server.url}/auth/session", headers=headers)
    assert response.status_code == 431
    assert response.text == TOO_LARGE
    fitting = {f"x-pad-{i}": "1" for i in range(90)}
    assert httpx.get(f"{server.url}/auth/session", headers=fitting).status_code == 200


def test_a_70_kib_header_never_reaches_the_engine(server: LiveServer) -> None:
    """uvicorn (httptools) passes it on and the binding answers 431; hypercorn's h11 refuses
    anything over 16 KiB itself, before the app (400)."""
    response = httpx.get(f"{server.url}/auth/session", headers={"x-big": "x" * (70 * 1024)})
    if "uvicorn" in map(str, server.process.args):
        assert response.status_code == 431
        assert response.text == TOO_LARGE
    else:
        assert response.status_code in (400, 431)
    assert response.status_code != 200


def test_5000_session_chunks_get_a_short_answer(server: LiveServer) -> None:
    """The audit's 487 KiB answer: now a 431 (the Cookie header is over 64 KiB) or the
    server's own refusal, a few bytes either way; within the header limit, chunks beyond
    the cap are no session, and the read and sign-out delete 16 at most."""
    many = "; ".join(f"{SESSION}.{i}=x" for i in range(5000))
    response = httpx.get(f"{server.url}/auth/session", headers={"cookie": many})
    assert response.status_code in (400, 431)
    assert len(response.content) + sum(len(v) for v in response.headers.values()) < 2048
    with httpx.Client(base_url=server.url) as client:
        token = csrf_token(client)
        some = "; ".join(f"{SESSION}.{i}=x" for i in range(40))
        csrf = f"authjs.csrf-token={client.cookies['authjs.csrf-token']}"
        read = client.get("/auth/session", headers={"cookie": f"{some}; {csrf}"})
        assert read.json() is None
        refused = read.headers.get_list("set-cookie")
        assert len(refused) == 16
        assert all(c.startswith(f"{SESSION}.") and "Max-Age=0" in c for c in refused)
        signed_out = client.post(
            "/auth/signout", data={"csrfToken": token}, headers={"cookie": f"{some}; {csrf}"}
        )
    assert signed_out.status_code == 302
    deleted = [c for c in signed_out.headers.get_list("set-cookie") if c.startswith(SESSION)]
    assert len(deleted) == 16
    assert "no-store" in signed_out.headers["cache-control"]
