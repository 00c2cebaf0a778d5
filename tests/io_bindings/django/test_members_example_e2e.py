"""The users example (``examples/django_users``: a custom user model, the admin, the ORM store)
served for real, under uvicorn (ASGI) and ``runserver`` (WSGI), on a SQLite file and on
PostgreSQL, migrated by ``manage.py migrate``: one member signs in through OpenID Connect
(the test OP), an e-mail link (a real SMTP inbox) and a passkey (the software
authenticator); ``request.user`` is that member each time, ``login_required`` and the admin
see them, and what the store wrote is in the project's own tables. A member made by Django
signs in with their Django password from ``login_required``'s ``?next=``, and the admin's
log-out signs them out."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import httpx
import psycopg
import pytest
from db_servers import PostgresServer
from live_server import ROOT, LiveServer, free_port, serve, uvicorn_command
from mail_server import MailServer, sign_in_link

from sansio_auth.testing import seeded_entropy
from sansio_auth.testing.webauthn import SoftAuthenticator
from tests.io_bindings.django.conftest import CRASHES, SECRET
from tests.io_bindings.django.forms import form_for
from tests.io_bindings.passkeys import passkey_ceremony
from tests.oidc_op.provider import OpenIDProvider

pytestmark = pytest.mark.e2e
PROJECT = ROOT / "examples" / "django_users"


class Database:
    """The example's database: its ``EXAMPLE_*`` environment, and SQL on it for the checks."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)

    def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """Run ``sql`` (``%s`` placeholders) and commit; its rows."""
        if "EXAMPLE_SQLITE" in self.env:
            with sqlite3.connect(self.env["EXAMPLE_SQLITE"]) as conn:
                return conn.execute(sql.replace("%s", "?"), params).fetchall()
        with psycopg.connect(self.env["EXAMPLE_POSTGRES"]) as conn:
            cursor = conn.execute(sql.encode(), params)
            return cursor.fetchall() if cursor.description else []

    def member(self, email: str) -> tuple[Any, ...]:
        """``(id, name, last_login)`` of the member with ``email``."""
        [row] = self.rows("SELECT id, name, last_login FROM members_user WHERE email = %s", email)
        return row


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A new database for the example, migrated by its ``manage.py migrate``."""
    dsn = None
    if request.param == "sqlite":
        env = {"EXAMPLE_SQLITE": str(tmp_path_factory.mktemp("members") / "db.sqlite3")}
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        dsn = server.create_database()
        env = {"EXAMPLE_POSTGRES": dsn}
    command = [sys.executable, str(PROJECT / "manage.py"), "migrate", "--no-input"]
    done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    yield Database(env)
    if dsn is not None:
        request.getfixturevalue("postgres_server").drop_database(dsn)


def command(mode: str, port: int) -> list[str]:
    """The example under uvicorn (``asgi``) or Django's ``runserver`` (``wsgi``)."""
    if mode == "asgi":
        return [*uvicorn_command("usersite.asgi:application", port), "--app-dir", str(PROJECT)]
    return [sys.executable, str(PROJECT / "manage.py"), "runserver", "--noreload",
            f"127.0.0.1:{port}"]  # fmt: skip


@pytest.fixture(scope="module", params=["asgi", "wsgi"])
def site(
    request: pytest.FixtureRequest, database: Database, oidc_op: OpenIDProvider, smtp: MailServer
) -> Iterator[LiveServer]:
    port = free_port()
    client = oidc_op.register_client([f"http://127.0.0.1:{port}/auth/callback/op"])
    env = {
        **database.env,
        "AUTH_SECRET": SECRET,
        "EXAMPLE_OIDC_ISSUER": oidc_op.issuer,
        "AUTH_OP_ID": client.client_id,
        "AUTH_OP_SECRET": client.client_secret or "",
        "EXAMPLE_SMTP_PORT": str(smtp.port),
    }
    with serve(command(request.param, port), port, env=env) as live:
        yield live
        log = live.log
    for crash in CRASHES:
        assert crash not in log, log


@pytest.fixture
def http(site: LiveServer) -> Iterator[httpx.Client]:
    """A browser with its own cookie jar; redirects are not followed."""
    with httpx.Client(base_url=site.url, timeout=15) as http:
        yield http


def whoami(http: httpx.Client) -> Any:
    response = http.get("/whoami")
    assert response.status_code == 200, response.text
    return response.json()["user"]


def sign_out(http: httpx.Client) -> None:
    form = form_for(http, None)
    assert http.post(form.action, data=form.fields).status_code == 303
    assert whoami(http) is None


def email_sign_in(http: httpx.Client, smtp: MailServer, address: str) -> None:
    form = form_for(http, "email")
    assert http.post(form.action, data={**form.fields, "email": address}).status_code == 303
    assert http.get(sign_in_link(smtp.inbox.next_for(address))).status_code == 302


def test_one_member_through_oidc_email_and_passkeys(
    http: httpx.Client, site: LiveServer, database: Database, oidc_op: OpenIDProvider,
    smtp: MailServer,
) -> None:  # fmt: skip
    start = http.post(form_for(http, "op").action, data=form_for(http, "op").fields)
    assert start.headers["location"].startswith(oidc_op.authorization_endpoint)
    with httpx.Client(timeout=15) as op_browser:
        answer = oidc_op.login(op_browser, start.headers["location"])
    assert answer.send(http).headers["location"] == f"{site.url}/"
    member = whoami(http)
    assert (member["email"], member["name"]) == (oidc_op.account.email, oidc_op.account.name)
    member_id, name, last_login = database.member(oidc_op.account.email)
    assert (member_id, name) == (member["id"], oidc_op.account.name)  # the model's own field
    assert last_login is not None  # user_logged_in reached Django's own receiver
    account = http.get("/account/")
    assert account.status_code == 200
    assert "<li>op</li>" in account.text
    sign_out(http)

    email_sign_in(http, smtp, oidc_op.account.email)  # the same address: the same member
    assert whoami(http)["id"] == member_id
    key = SoftAuthenticator(entropy=seeded_entropy(f"members-{uuid.uuid4()}"))
    passkeys = "SELECT count(*) FROM sansio_auth_authenticator WHERE user_id = %s"
    [(before,)] = database.rows(passkeys, member_id)  # the other server's run had one too
    passkey_ceremony(http, key, "/auth", action="register")
    assert database.rows(passkeys, member_id) == [(before + 1,)]
    sign_out(http)

    passkey_ceremony(http, key, "/auth")
    assert whoami(http)["id"] == member_id
    page = http.get("/account/").text
    assert "<li>singleDevice</li>" in page
    sessions = "SELECT count(*) FROM sansio_auth_session WHERE user_id = %s"
    [(count,)] = database.rows(sessions, member_id)
    assert f'<p id="sessions">{count} signed-in browser' in page


def test_login_required_sends_signed_out_browsers_to_the_sign_in_page(http: httpx.Client) -> None:
    response = http.get("/account/")
    assert response.status_code == 302
    assert response.headers["location"] == "/auth/signin?next=/account/"  # Django's own
    assert http.get(response.headers["location"]).status_code == 200


MAKE_MEMBER = """
import os
from django.utils import timezone
from io_bindings.django.orm.models import UserProfile
from members.models import User

member = User.objects.create_user(os.environ["MEMBER"], "their Django password", is_staff=True)
UserProfile.objects.create(user=member, email_verified=timezone.now())
"""


def test_a_django_member_signs_in_with_their_password_and_the_admin_signs_them_out(
    http: httpx.Client, site: LiveServer, database: Database
) -> None:
    """A member made by ``User.objects.create_user(email, password)`` signs in with the
    ``Password`` provider from ``login_required``'s ``?next=`` and lands there; the admin's
    "Log out" (Django's ``logout()``) ends the session and deletes its cookie."""
    address = f"django-{uuid.uuid4().hex[:8]}@example.com"
    shell = [sys.executable, str(PROJECT / "manage.py"), "shell", "-c", MAKE_MEMBER]
    env = {**os.environ, **database.env, "MEMBER": address}
    done = subprocess.run(shell, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    page = http.get(http.get("/account/").headers["location"])  # /auth/signin?next=/account/
    assert page.status_code == 200
    csrf = http.get("/auth/csrf").json()["csrfToken"]
    fields = {"csrfToken": csrf, "email": address, "password": "their Django password"}
    signed_in = http.post("/auth/callback/password", data=fields)
    assert signed_in.headers["location"] == f"{site.url}/account/", signed_in.text
    assert whoami(http)["email"] == address
    assert http.get("/admin/").status_code == 200  # staff
    logout = {"csrfmiddlewaretoken": http.cookies["csrftoken"]}
    logged_out = http.post("/admin/logout/", data=logout)
    assert logged_out.status_code == 200
    assert "Logged out" in logged_out.text
    cookies = logged_out.headers.get_list("set-cookie")
    assert any(line.startswith("authjs.session-token=;") for line in cookies), cookies
    assert whoami(http) is None
    assert http.get("/auth/session").json() is None
    member_id = database.member(address)[0]
    sessions = "SELECT count(*) FROM sansio_auth_session WHERE user_id = %s"
    assert database.rows(sessions, member_id) == [(0,)]


def test_the_admin_shows_the_members_rows(
    http: httpx.Client, database: Database, smtp: MailServer
) -> None:
    address = f"admin-{uuid.uuid4().hex[:8]}@example.com"
    email_sign_in(http, smtp, address)
    assert http.get("/admin/").headers["location"] == "/admin/login/?next=/admin/"  # not staff
    database.rows(
        "UPDATE members_user SET is_staff = %s, is_superuser = %s WHERE email = %s",
        True, True, address,
    )  # fmt: skip
    index = http.get("/admin/")
    assert index.status_code == 200, index.text
    assert "sansio-auth" in index.text
    sessions = http.get("/admin/sansio_auth_orm/session/")
    assert sessions.status_code == 200
    assert address in sessions.text
    for rows in ("account", "authenticator"):
        assert http.get(f"/admin/sansio_auth_orm/{rows}/").status_code == 200
    member_id = whoami(http)["id"]
    page = http.get(f"/admin/members/user/{member_id}/change/")
    assert page.status_code == 200
    for inline in ("Accounts", "Sessions", "Authenticators"):
        assert inline in page.text
    assert "session_token" not in page.text  # secrets are not shown
