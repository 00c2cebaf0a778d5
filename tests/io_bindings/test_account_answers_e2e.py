"""Password accounts through a real server (uvicorn, ``tests/support/account_answers_app.py``)
on SQLite and Redis: a common password refused at sign-up (JSON and page), ``{"url"}`` for a
script at sign-up, password sign-in and the second factor, the headers of the pages that
carry a token or show a secret, one lifetime for the waiting sign-in's cookie, and refusals
logged as warnings."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from live_server import LiveServer, csrf_token, free_port, serve, uvicorn_command

from sansio_auth.totp import secret_key, totp
from tests.io_bindings.email_sign_in import CRASHES, new_database

pytestmark = pytest.mark.e2e

PW = "correct horse battery staple"
JSON = {"accept": "application/json"}
NO_STORE = "private, no-cache, no-store"


class Site:
    """The app served on one store, and the file its e-mails go to."""

    def __init__(self, live: LiveServer, mail: Path) -> None:
        self.live, self.mail = live, mail

    @property
    def url(self) -> str:
        return self.live.url

    def last_mail(self, kind: str, to: str) -> dict[str, Any]:
        sent = [json.loads(line) for line in self.mail.read_text().splitlines()]
        found = [m for m in sent if m["kind"] == kind and m["to"] == to]
        assert found, sent
        return found[-1]


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    mail = tmp_path_factory.mktemp("mail") / "sent.jsonl"
    mail.touch()
    port = free_port()
    with new_database(request.param, request, tmp_path_factory) as database:
        env = {"ACCOUNTS_DATABASE": database, "ACCOUNTS_MAIL": str(mail)}
        command = uvicorn_command("account_answers_app:app", port)
        with serve(command, port, env=env) as live:
            yield Site(live, mail)
            log = live.log
    for crash in CRASHES:
        assert crash not in log, log


@pytest.fixture
def client(site: Site) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=site.url, timeout=15) as http:
        yield http


def address() -> str:
    return f"ann-{uuid.uuid4().hex[:10]}@example.com"


def post_json(client: httpx.Client, route: str, **body: str) -> httpx.Response:
    return client.post(f"/auth/{route}", json={"csrfToken": csrf_token(client), **body})


def post_form(
    client: httpx.Client, route: str, headers: dict[str, str] | None = None, **form: str
) -> httpx.Response:
    data = {"csrfToken": csrf_token(client), **form}
    return client.post(f"/auth/{route}", data=data, headers=headers)


def log_since(site: Site, mark: int) -> str:
    return site.live.log[mark:]


def test_a_common_password_is_refused_at_sign_up(site: Site, client: httpx.Client) -> None:
    email, mark = address(), len(site.live.log)
    script = post_json(client, "signup", email=email, password="password1")
    assert (script.status_code, script.json()) == (400, {"error": "common"})
    page = post_form(client, "signup", email=email, password="QWERTYUIOP")
    assert page.status_code == 400
    assert "That password is too common" in page.text
    assert "authjs.session-token" not in client.cookies
    not_made = post_json(client, "callback/password", email=email, password="password1")
    assert "error=CredentialsSignin" in not_made.json()["url"]
    time.sleep(0.2)  # the log is written as the answers go out
    log = log_since(site, mark)
    assert log.count("[auth][warn] FormError: POST signup refused the form: common") == 2, log
    assert "[auth][warn] CredentialsSignin: " in log
    assert "[auth][error]" not in log, log


def test_scripts_get_their_url_and_secrets_are_never_stored(
    site: Site, client: httpx.Client
) -> None:
    email = address()
    signed_up = post_json(client, "signup", email=email, password=PW)
    assert (signed_up.status_code, signed_up.json()) == (200, {"url": site.url})
    assert client.get("/auth/session").json()["user"]["email"] == email
    setup = client.get("/auth/two-factor-setup")
    assert "otpauth://" in setup.text
    assert setup.headers["cache-control"] == NO_STORE
    uri = client.get("/auth/two-factor-setup", headers=JSON).json()["uri"]
    code = totp(secret_key(uri.split("secret=")[1].split("&")[0]), time.time())
    enabled = post_json(client, "two-factor-setup", action="enable", code=code)
    assert enabled.headers["cache-control"] == NO_STORE
    recovery = enabled.json()["recovery_codes"]
    assert post_form(client, "signout").status_code == 302

    before = time.time()
    waiting = post_json(client, "callback/password", email=email, password=PW)
    assert (waiting.status_code, waiting.json()) == (200, {"url": f"{site.url}/auth/two-factor"})
    [pending] = [c for c in waiting.headers.get_list("set-cookie") if c.startswith("authjs.two-")]
    attributes = dict(part.partition("=")[::2] for part in pending.split("; ")[1:])
    expires = parsedate_to_datetime(attributes["Expires"]).timestamp()
    assert attributes["Max-Age"] == "300"
    assert before - 2 <= expires - 300 <= time.time() + 1
    challenge = client.get("/auth/two-factor")
    assert challenge.headers["cache-control"] == NO_STORE

    done = post_json(client, "two-factor", method="recovery", recovery_code=recovery[0])
    assert (done.status_code, done.json()) == (200, {"url": site.url})
    assert client.get("/auth/session").json()["user"]["email"] == email


def test_pages_whose_url_carries_a_token_send_no_referrer(site: Site, client: httpx.Client) -> None:
    email, mark = address(), len(site.live.log)
    assert post_json(client, "signup", email=email, password=PW).status_code == 200
    new = address()
    changed = post_form(client, "change-email", JSON, email=new, password=PW)
    assert changed.json() == {"sent": True}
    link = urlsplit(site.last_mail("change-email", new)["url"])
    followed = client.get(f"{link.path}?{link.query}")
    assert followed.status_code == 200
    assert followed.headers["referrer-policy"] == "no-referrer"

    assert post_form(client, "forgot-password", email=new).status_code == 302
    link = urlsplit(site.last_mail("reset-password", new)["url"])
    page = client.get(f"{link.path}?{link.query}")
    assert page.status_code == 200
    assert page.headers["referrer-policy"] == "no-referrer"
    assert page.headers["cache-control"] == NO_STORE
    forged = client.get(f"{link.path}?token=forged&email={new}")
    assert forged.headers["referrer-policy"] == "no-referrer"

    assert post_form(client, "forgot-password", email=address()).status_code == 302
    time.sleep(0.2)
    log = log_since(site, mark)
    assert "[auth][warn][no-account]" in log, log
    assert "[auth][error]" not in log, log


def test_other_pages_carry_neither_header(site: Site, client: httpx.Client) -> None:
    for path in ("/auth/signin", "/auth/signup", "/auth/forgot-password"):
        page = client.get(path)
        assert page.status_code == 200
        assert "referrer-policy" not in page.headers
        assert "cache-control" not in page.headers
