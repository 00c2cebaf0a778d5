"""Lock-out through real servers on SQLite and Redis (``tests/support/lockout_app.py``,
default limits): whoever knows an address can exhaust its limits, but the browser its owner
signed in with before still signs in, asks for a reset and for an e-mail link; any other
browser is still limited."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import wsgi_server
from live_server import SERVERS, LiveServer, csrf_token, free_port, serve

from tests.io_bindings.email_sign_in import CRASHES, new_database

pytestmark = pytest.mark.e2e

PASSWORD = "the owner's own passphrase"
COMMANDS = {**SERVERS, "wsgi": wsgi_server.command}


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with new_database(request.param, request, tmp_path_factory) as url:
        yield url


@contextmanager
def lockout_server(server: str, database: str, mail: Path) -> Iterator[LiveServer]:
    port = free_port()
    app = "lockout_app:wsgi" if server == "wsgi" else "lockout_app:asgi"
    env = {"LOCKOUT_DATABASE": database, "LOCKOUT_MAIL": str(mail)}
    with serve(COMMANDS[server](app, port), port, env=env) as live:
        yield live
        log = live.log
    for crash in (*CRASHES, "Traceback"):
        assert crash not in log, log


def mails(path: Path, to: str, kind: str) -> list[dict[str, Any]]:
    found = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [m for m in found if m["to"] == to and m["kind"] == kind]


def post(client: httpx.Client, route: str, **form: str) -> httpx.Response:
    return client.post(f"/auth/{route}", data={"csrfToken": csrf_token(client), **form})


def signed_in_as(client: httpx.Client) -> str | None:
    session = client.get("/auth/session").json()
    return None if session is None else str(session["user"]["email"])


@pytest.mark.parametrize("server", ["uvicorn", "wsgi"])
def test_an_attacker_cannot_lock_the_owner_out_of_a_browser_they_signed_in_with(
    database: str, server: str, tmp_path: Path
) -> None:
    owner_address = f"owner-{uuid.uuid4().hex[:8]}@example.com"
    mail = tmp_path / "mail.jsonl"
    with (
        lockout_server(server, database, mail) as live,
        httpx.Client(base_url=live.url, timeout=15) as owner,
        httpx.Client(base_url=live.url, timeout=15) as attacker,
        httpx.Client(base_url=live.url, timeout=15) as fresh,
    ):
        assert post(owner, "signup", email=owner_address, password=PASSWORD).status_code == 302
        [verification] = mails(mail, owner_address, "verify-email")
        assert owner.get(verification["url"]).status_code == 200
        first = post(owner, "callback/password", email=owner_address, password=PASSWORD)
        assert first.status_code == 302
        assert signed_in_as(owner) == owner_address
        assert post(owner, "signout").status_code == 302
        assert signed_in_as(owner) is None

        for _ in range(10):
            post(attacker, "callback/password", email=owner_address, password="a guess")
        for _ in range(5):
            post(attacker, "forgot-password", email=owner_address)
        locked = post(attacker, "callback/password", email=owner_address, password=PASSWORD)
        assert locked.status_code == 429
        assert 800 <= int(locked.headers["retry-after"]) <= 900

        again = post(owner, "callback/password", email=owner_address, password=PASSWORD)
        assert again.status_code == 302, again.text
        assert "error" not in again.headers["location"]
        assert signed_in_as(owner) == owner_address
        resets = len(mails(mail, owner_address, "reset-password"))
        forgot = post(owner, "forgot-password", email=owner_address)
        assert forgot.status_code == 302
        assert forgot.headers["location"].endswith("/verify-request?provider=password&type=reset")
        assert len(mails(mail, owner_address, "reset-password")) == resets + 1
        link = post(owner, "signin/email", email=owner_address)
        assert link.status_code == 302
        assert link.headers["location"].endswith("/verify-request?provider=email&type=email")
        assert len(mails(mail, owner_address, "sign-in")) == 1

        for route, form in (
            ("callback/password", {"email": owner_address, "password": PASSWORD}),
            ("forgot-password", {"email": owner_address}),
            ("signin/email", {"email": owner_address}),
        ):
            assert post(fresh, route, **form).status_code == 429, route
        assert signed_in_as(fresh) is None
