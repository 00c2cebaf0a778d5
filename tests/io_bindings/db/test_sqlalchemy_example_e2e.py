"""The FastAPI + SQLAlchemy example (``examples/fastapi_sqlalchemy_app.py``: the app's own
``User`` model) served by uvicorn on a SQLite file, PostgreSQL (psycopg) and MariaDB
(PyMySQL): one user signs in through OpenID Connect (the test OP), an e-mail link (a real
SMTP inbox) and a passkey (the software authenticator), and is the same row of the app's
``app_users`` table each time, with its own ``plan`` column."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from live_server import LiveServer, csrf_token, free_port, serve, uvicorn_command
from mail_server import MailServer, mail_server, sign_in_link
from sqlalchemy import create_engine, text

from sansio_auth.testing import seeded_entropy
from sansio_auth.testing.webauthn import SoftAuthenticator
from tests.io_bindings.db.conftest import sqlalchemy_url
from tests.io_bindings.passkeys import passkey_ceremony
from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]

pytestmark = pytest.mark.e2e
SECRET = "fastapi-sqlalchemy-secret-long-enough-0123456789"
CRASHES = ("Exception in ASGI application", "Traceback")


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgres", "mariadb"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A SQLAlchemy URL of an empty database (the app makes its tables at start-up)."""
    return sqlalchemy_url(request.param, request, tmp_path)


@pytest.fixture
def site(database: str, oidc_op: OpenIDProvider, smtp: MailServer) -> Iterator[LiveServer]:
    port = free_port()
    client = oidc_op.register_client([f"http://127.0.0.1:{port}/api/auth/callback/op"])
    env = {
        "AUTH_SECRET": SECRET,
        "EXAMPLE_DATABASE_URL": database,
        "EXAMPLE_SMTP_PORT": str(smtp.port),
        "EXAMPLE_OIDC_ISSUER": oidc_op.issuer,
        "AUTH_OP_ID": client.client_id,
        "AUTH_OP_SECRET": client.client_secret or "",
    }
    with serve(uvicorn_command("examples.fastapi_sqlalchemy_app:app", port), port, env=env) as live:
        yield live
        log = live.log
    for crash in CRASHES:
        assert crash not in log, log


def me(http: httpx.Client) -> Any:
    response = http.get("/me")
    assert response.status_code == 200, response.text
    return response.json()


def sign_out(http: httpx.Client) -> None:
    response = http.post("/api/auth/signout", data={"csrfToken": csrf_token(http, "/api/auth")})
    assert response.status_code == 302
    assert http.get("/me").status_code == 401


def test_one_user_through_oidc_email_and_passkeys(
    site: LiveServer, database: str, oidc_op: OpenIDProvider, smtp: MailServer
) -> None:
    with httpx.Client(base_url=site.url, timeout=15) as http:
        start = http.post("/api/auth/signin/op", data={"csrfToken": csrf_token(http, "/api/auth")})
        assert start.headers["location"].startswith(oidc_op.authorization_endpoint)
        with httpx.Client(timeout=15) as op_browser:
            answer = oidc_op.login(op_browser, start.headers["location"])
        assert answer.send(http).status_code == 302
        user = me(http)
        assert user["email"] == oidc_op.account.email
        assert (user["name"], user["plan"], user["accounts"]) == (oidc_op.account.name, "free",
                                                                  ["op"])  # fmt: skip
        sign_out(http)

        address = oidc_op.account.email  # the same address: the same user
        form = {"csrfToken": csrf_token(http, "/api/auth"), "email": address}
        assert http.post("/api/auth/signin/email", data=form).status_code == 302
        assert http.get(sign_in_link(smtp.inbox.next_for(address))).status_code == 302
        assert me(http)["id"] == user["id"]

        key = SoftAuthenticator(entropy=seeded_entropy(f"fastapi-{uuid.uuid4()}"))
        passkey_ceremony(http, key, "/api/auth", action="register")
        assert me(http)["passkeys"] == 1
        sign_out(http)
        passkey_ceremony(http, key, "/api/auth")
        assert me(http) == {**user, "passkeys": 1, "accounts": ["op", "passkey"]}

    engine = create_engine(database)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT count(*) FROM app_users")).scalar()
        verified = conn.execute(text("SELECT email_verified FROM app_users")).scalar()
    engine.dispose()
    assert rows == 1
    assert verified is not None  # the e-mail link verified the address
