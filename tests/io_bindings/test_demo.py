"""The demo (``python -m io_bindings.demo``) starts and serves its pages; e-mail sign-in
through the console sender and the dev inbox; its data dir keeps the secret and the database."""

from __future__ import annotations

import base64
import html
import json
import re
import socket
import subprocess
import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import anyio
import httpx
import pytest
from extras import IMPORTED_DISTRIBUTIONS, PROJECT, normalized, requirement_closure
from joserfc import jwt
from live_server import LiveServer, free_port, serve

from io_bindings.db.sqlite import SQLiteAdapter
from io_bindings.demo import DEMO_LOGIN, INBOX_PATH, OP_PATH
from io_bindings.demo_op import CLIENT_ID, DemoOP, s256_challenge
from tests.io_bindings.passkeys import check_passkey_round_trip

pytestmark = pytest.mark.e2e


def test_home_page_names_the_demo_user(demo_server: LiveServer) -> None:
    page = httpx.get(demo_server.url + "/")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert "not signed in" in page.text
    assert f"<b>{DEMO_LOGIN[0]}</b>, password <b>{DEMO_LOGIN[1]}</b>" in page.text


def consent(browser: httpx.Client, demo: LiveServer, callback_url: str) -> httpx.Response:
    """Start the sign-in with the demo provider; return its consent page."""
    token = browser.get("/auth/csrf").json()["csrfToken"]
    started = browser.post(
        "/auth/signin/demo-op", data={"csrfToken": token, "callbackUrl": callback_url}
    )
    location = started.headers["location"]
    assert location.startswith(f"{demo.url}{OP_PATH}/authorize?")
    assert "code_challenge_method=S256" in location
    page = browser.get(location)
    assert page.status_code == 200
    assert "asks to know your name and e-mail address" in page.text
    return page


def consent_form(page: httpx.Response) -> dict[str, str]:
    """The hidden fields of the consent form (the authorization request)."""
    fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page.text)
    return {name: html.unescape(value) for name, value in fields}


def test_sign_in_with_the_demo_provider(demo_server: LiveServer) -> None:
    """The whole authorization-code flow through the OP the demo serves itself: discovery,
    consent, code, token (PKCE checked) and ID token verified against its JWKS."""
    with httpx.Client(base_url=demo_server.url) as browser:
        page = consent(browser, demo_server, "/protected")
        form = consent_form(page)
        answer = {**form, "name": "Grace Hopper", "email": "grace@demo-op.example"}
        allowed = browser.post(f"{OP_PATH}/authorize", data={**answer, "decision": "allow"})
        assert allowed.status_code == 303
        callback = allowed.headers["location"]
        assert callback.startswith(demo_server.url + "/auth/callback/demo-op?code=")
        signed_in = browser.get(callback)
        assert signed_in.headers["location"] == demo_server.url + "/protected"
        assert "Hello, Grace Hopper!" in browser.get("/protected").text
        session = browser.get("/auth/session").json()
        assert session["user"]["name"] == "Grace Hopper"
        assert session["user"]["email"] == "grace@demo-op.example"
        # the code was used up: replaying the callback does not sign in again
        assert "error=" in browser.get(callback).headers["location"]
    code = dict(httpx.URL(callback).params)["code"]
    assert code not in demo_server.log  # no access log of callback URLs


def test_the_demo_provider_checks_pkce_and_the_client(demo_server: LiveServer) -> None:
    with httpx.Client(base_url=demo_server.url) as browser:
        form = consent_form(consent(browser, demo_server, "/"))
        allowed = browser.post(f"{OP_PATH}/authorize", data={**form, "decision": "allow"})
        code = dict(httpx.URL(allowed.headers["location"]).params)["code"]
        exchange = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": form["redirect_uri"],
            "code_verifier": "not-the-verifier-" + "x" * 40,
        }
        wrong_client = browser.post(f"{OP_PATH}/token", data=exchange, auth=("nobody", "x"))
        assert wrong_client.json() == {"error": "invalid_client"}
        assert browser.get(f"{OP_PATH}/userinfo").status_code == 401
        keys = browser.get(f"{OP_PATH}/jwks").json()["keys"]
        assert [(k["kty"], "d" in k) for k in keys] == [("RSA", False)]  # public part only


def test_denying_consent_at_the_demo_provider(demo_server: LiveServer) -> None:
    with httpx.Client(base_url=demo_server.url) as browser:
        form = consent_form(consent(browser, demo_server, "/"))
        denied = browser.post(f"{OP_PATH}/authorize", data={**form, "decision": "deny"})
        ended = browser.get(denied.headers["location"])
        assert ended.headers["location"].endswith("/auth/signin?error=OAuthCallbackError")
        assert browser.get("/auth/session").json() is None


def test_the_demo_provider_issues_a_code_once_for_the_right_pkce_verifier() -> None:
    op = DemoOP("http://demo.test/demo-op")
    verifier = "v" * 50
    request = {
        "client_id": CLIENT_ID,
        "redirect_uri": "http://demo.test/auth/callback/demo-op",
        "state": "s",
        "nonce": "n",
        "code_challenge": s256_challenge(verifier),
        "code_challenge_method": "S256",
    }
    assert op.consent_page({**request, "code_challenge_method": "plain"}).status == 303
    code = dict(parse_qsl(op.decide({**request, "decision": "allow"}).location.split("?")[1]))
    assert code["state"] == "s"
    assert code["iss"] == "http://demo.test/demo-op"
    basic = "Basic " + base64.b64encode(f"{CLIENT_ID}:{op.client_secret}".encode()).decode()
    exchange = {"grant_type": "authorization_code", "code": code["code"], **request}
    wrong = op.token({**exchange, "code_verifier": "w" * 50}, basic)
    assert wrong.json() == {"error": "invalid_grant"}
    code = dict(parse_qsl(op.decide({**request, "decision": "allow"}).location.split("?")[1]))
    right = op.token({**exchange, "code": code["code"], "code_verifier": verifier}, basic).json()
    claims = jwt.decode(right["id_token"], op.key).claims
    assert (claims["iss"], claims["aud"], claims["nonce"]) == (op.issuer, CLIENT_ID, "n")
    assert op.token(
        {**exchange, "code": code["code"], "code_verifier": verifier}, basic
    ).json() == {"error": "invalid_grant"}
    userinfo = op.userinfo("Bearer " + right["access_token"]).json()
    assert userinfo["email"] == "ada@demo-op.example"


def test_a_busy_port_is_one_line_and_a_non_zero_exit(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {"PATH": "", "PORT": str(port), "DEMO_DIR": str(tmp_path), "PYTHONPATH": "."}
        done = subprocess.run(
            [sys.executable, "-m", "io_bindings.demo"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=Path(__file__).parents[2],
        )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"demo: port {port} on 127.0.0.1 is not free (Address already in use); "
        f"pick another with PORT, e.g. `PORT={port + 1} make demo`"
    ]


@pytest.mark.parametrize(
    ("stack", "loop_and_parser"), [("pure", "asyncio + h11"), ("fast", "uvloop + httptools")]
)
def test_the_demo_runs_on_either_server_stack(
    tmp_path: Path, stack: str, loop_and_parser: str
) -> None:
    """``DEMO_SERVER=pure`` runs on the pure-Python stack (no ``server`` extra needed);
    ``fast``, the default when installed, on uvloop and httptools."""
    with serve_demo(tmp_path, DEMO_SERVER=stack) as demo:
        assert httpx.get(demo.url + "/auth/csrf").json()["csrfToken"]
        assert f"uvicorn on {loop_and_parser})" in demo.log


def test_the_demo_refuses_an_unknown_server_stack(tmp_path: Path) -> None:
    env = {"PATH": "", "DEMO_SERVER": "gunicorn", "DEMO_DIR": str(tmp_path), "PYTHONPATH": "."}
    done = subprocess.run(
        [sys.executable, "-m", "io_bindings.demo"],
        env=env, capture_output=True, text=True, timeout=60, check=False,
        cwd=Path(__file__).parents[2],
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["DEMO_SERVER must be 'fast' or 'pure', not 'gunicorn'"]


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
        [shown] = re.findall(r"<h2>Session</h2><pre>(.*?)</pre>", home.text, re.S)
        session = json.loads(html.unescape(shown))  # JSON, as /auth/session answers
        assert session["user"] == browser.get("/auth/session").json()["user"]
        assert session["user"]["email"] == "demo@example.com"


def test_wrong_password_is_refused(demo_server: LiveServer) -> None:
    with httpx.Client(base_url=demo_server.url) as browser:
        token = browser.get("/auth/csrf").json()["csrfToken"]
        form = {"csrfToken": token, "username": DEMO_LOGIN[0], "password": "nope"}
        refused = browser.post("/auth/callback/credentials", data=form)
        assert "error=CredentialsSignin" in refused.headers["location"]
        assert browser.get("/protected").status_code == 302


def test_passkey_sign_in_with_the_software_authenticator(demo_server: LiveServer) -> None:
    """The demo offers passkeys (its sign-in page, the experimental flag, SQLite) on
    ``localhost``; the browser side is in tests/browser/test_passkeys.py."""
    site = demo_server.url.replace("//127.0.0.1:", "//localhost:")
    with httpx.Client(base_url=site) as browser:
        page = browser.get("/auth/signin").text
        assert f'data-webauthn-options="{site}/auth/webauthn-options/passkey"' in page
        assert "passkey" in browser.get("/auth/providers").json()
        check_passkey_round_trip(browser, "/auth")
        assert "Add a passkey" in browser.get("/").text


def button_label(page: str, button_id: str) -> str:
    [label] = re.findall(rf'<button id="{button_id}"[^>]*>([^<]+)</button>', page)
    return html.unescape(label)


def test_the_passkey_instructions_name_the_sign_in_pages_buttons(demo_server: LiveServer) -> None:
    """A passkey is registered by the sign-in page's sign-up button (a press of its sign-in
    button with no passkey is cancelled by the browser): the home page and README.md say
    to press that one the first time, by the label the page gives it."""
    page = httpx.get(demo_server.url + "/auth/signin").text
    sign_up = button_label(page, "registerButton-passkey")
    sign_in = button_label(page, "submitButton-passkey")
    home = httpx.get(demo_server.url + "/").text
    assert f"the first time, type an e-mail address and press <i>{sign_up}</i>" in home
    assert f"after that, press <i>{sign_in}</i>" in home
    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text().split())
    assert f"the first time, type an e-mail address and press *{sign_up}*" in readme
    assert f"after that, *{sign_in}*" in readme


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


DEMO_IMPORTS = "import io_bindings.demo, uvicorn\n" + IMPORTED_DISTRIBUTIONS


def test_the_demo_extra_is_the_runtime_and_the_server_extra() -> None:
    """``make demo`` installs ``sansio-auth[demo]``, which is the ``server`` extra: what the
    demo imports is in it, and it holds none of the test toolchain (``make test`` installs
    ``[test]``, which includes both)."""
    extras = PROJECT["optional-dependencies"]
    assert extras["demo"] == ["sansio-auth[server]"]
    [own] = [r for r in extras["test"] if r.startswith("sansio-auth[")]
    assert {"server", "demo"} <= set(own.removeprefix("sansio-auth[").removesuffix("]").split(","))
    server = {normalized(r.partition(">")[0]) for r in extras["server"]}
    assert server == {"uvicorn", "uvloop", "httptools", "hypercorn"}
    closure = requirement_closure([*PROJECT["dependencies"], *extras["demo"]])
    assert not closure & {"pytest", "selenium", "mypy", "psycopg", "aiosmtpd", "hypothesis"}
    done = subprocess.run(
        [sys.executable, "-c", DEMO_IMPORTS],
        capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2],
    )  # fmt: skip
    # cryptography's SSH key serialization imports bcrypt when it is installed (the test extra
    # installs it, for the password hashes of migrating users): an optional import, not a need
    imported = {normalized(d) for d in done.stdout.split()} - {"sansio-auth", "bcrypt"}
    assert imported
    assert imported <= closure, imported - closure
    makefile = (Path(__file__).parents[2] / "Makefile").read_text()
    assert "demo: $(VENV)/.installed-demo\n" in makefile
    assert "pip install --quiet -e '.[demo]'" in makefile
