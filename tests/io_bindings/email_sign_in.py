"""Shared by the e-mail and database e2e tests: new databases of every kind, serve
``db_app``, sign in by e-mail, read the session."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

import anyio.to_thread
import httpx
import pytest
from db_app import adapter_for
from db_servers import PgBouncer, PostgresServer
from live_server import SERVERS, LiveServer, free_port, serve
from mail_server import MailServer, sign_in_link

SESSION_COOKIE = "authjs.session-token"
CRASHES = ("unexpected failure serving", "Exception in ASGI application", "Error in ASGI Framework")


DATABASE_KINDS = ("sqlite", "postgres", "pgbouncer", "redis")


def make_schema(database: str) -> str:
    """``database`` (an ``E2E_DATABASE``) once its adapter has made the schema, before any
    server opens it."""

    async def opened() -> None:
        async with adapter_for(database):
            pass

    anyio.run(opened)
    return database


@contextmanager
def new_database(
    kind: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The ``E2E_DATABASE`` of a new database of ``kind`` (:data:`DATABASE_KINDS`; the
    servers are the session's fixtures), its schema made; dropped afterwards."""
    dropped: PostgresServer | PgBouncer | None = None
    if kind == "sqlite":
        url = f"sqlite:{tmp_path_factory.mktemp('db-e2e') / 'auth.db'}"
    elif kind == "redis":
        url = f"{request.getfixturevalue('redis_url')}?key_prefix=e2e:{uuid.uuid4().hex}:"
    elif kind == "pgbouncer":  # PostgreSQL behind transaction pooling
        dropped = request.getfixturevalue("pgbouncer_server")
        url = f"pgbouncer:{dropped.create_database()}"
    else:
        dropped = request.getfixturevalue("postgres_server")
        url = dropped.create_database()
    yield make_schema(url)
    if dropped is not None:
        dropped.drop_database(url.removeprefix("pgbouncer:"))


@contextmanager
def serve_db_app(server: str, database: str, smtp_port: int, **env: str) -> Iterator[LiveServer]:
    """``db_app:app`` on ``server`` (a :data:`SERVERS` name); fails if it ever crashed."""
    port = free_port()
    variables = {"E2E_DATABASE": database, "E2E_SMTP_PORT": str(smtp_port), **env}
    with serve(SERVERS[server](port=port, app="db_app:app"), port, env=variables) as live:
        yield live
        log = live.log
    for crash in CRASHES:
        assert crash not in log, log


def origin(client: httpx.AsyncClient) -> str:
    """``client``'s base URL without the trailing slash httpx may or may not show."""
    return str(client.base_url).rstrip("/")


async def csrf_token(client: httpx.AsyncClient) -> str:
    token: str = (await client.get("/auth/csrf")).json()["csrfToken"]
    return token


async def request_link(
    client: httpx.AsyncClient, smtp: MailServer, address: str, callback_url: str = "/"
) -> str:
    """Ask for a sign-in link for ``address``; the link from the mail that arrives."""
    form = {"csrfToken": await csrf_token(client), "email": address, "callbackUrl": callback_url}
    response = await client.post("/auth/signin/email", data=form)
    assert response.status_code == 302, response.text
    assert response.headers["location"] == (
        f"{origin(client)}/auth/verify-request?provider=email&type=email"
    )
    mail = await anyio.to_thread.run_sync(smtp.inbox.next_for, address.strip().lower())
    return sign_in_link(mail)


def link_query(link: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(link).query).items()}


async def sign_in(client: httpx.AsyncClient, smtp: MailServer, address: str) -> str:
    """Sign ``client`` in by e-mail; its session token (the cookie value)."""
    response = await client.get(await request_link(client, smtp, address))
    assert response.status_code == 302, response.text
    token = client.cookies.get(SESSION_COOKIE)
    assert token
    return token


async def read_session(site: LiveServer, token: str) -> httpx.Response:
    """``GET session`` with just this session cookie (no cookie jar)."""
    cookie = {"cookie": f"{SESSION_COOKIE}={token}"}
    async with httpx.AsyncClient(timeout=15) as browser:
        return await browser.get(f"{site.url}/auth/session", headers=cookie)
