"""A PostgreSQL server that goes down under a running app, or was never there, with the psycopg
adapter and with the SQLAlchemy adapter on the same tables: every request that needs it fails
closed (error page, or ``null`` session with the cookie kept), the cause is
logged, and when the server is back nothing was lost and nothing was half-written."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import psycopg
import pytest
from db_servers import PostgresServer, postgres_cluster, sqlalchemy_url
from live_server import SERVERS, LiveServer, free_port
from mail_server import MailServer, mail_server

from tests.io_bindings.email_sign_in import (
    SESSION_COOKIE,
    csrf_token,
    make_schema,
    read_session,
    request_link,
    serve_db_app,
    sign_in,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

DB_TIMEOUT = "2"  # seconds the app's pool waits for a connection: keeps the outage short
RECOVERY_TIMEOUT = 60.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the test process only drives HTTP; the servers run asyncio and trio


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster of this module's own: the tests stop and start it."""
    with postgres_cluster() as server:
        yield server


@pytest.fixture(scope="module")
def database(cluster: PostgresServer) -> str:
    return make_schema(cluster.create_database())


def as_adapter(kind: str, dsn: str) -> str:
    """``E2E_DATABASE`` for the adapter ``kind`` on the PostgreSQL database ``dsn``."""
    return dsn if kind == "psycopg" else f"sqlalchemy:{sqlalchemy_url(dsn)}"


@pytest.fixture(scope="module", params=["psycopg", "sqlalchemy"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module", params=sorted(SERVERS))
def site(
    request: pytest.FixtureRequest, kind: str, database: str, smtp: MailServer
) -> Iterator[LiveServer]:
    url = as_adapter(kind, database)
    with serve_db_app(request.param, url, smtp.port, E2E_DB_TIMEOUT=DB_TIMEOUT) as live:
        yield live


async def session_once_back(site: LiveServer, token: str) -> Any:
    """The session of ``token`` once the app reaches the database again.

    The app is not restarted: its connection pool reconnects by itself, after a back-off
    of a few seconds; until then reads are still ``null``. (On asyncio the PostgreSQL
    adapter reads sessions on a pool of its own: see :func:`link_once_back`.)
    """
    deadline = time.monotonic() + RECOVERY_TIMEOUT
    while (session := (await read_session(site, token)).json()) is None:
        assert time.monotonic() < deadline, "the app did not reach the database again"
        await anyio.sleep(0.5)
    return session


async def link_once_back(site: LiveServer, client: httpx.AsyncClient, link: str) -> str:
    """Where the sign-in ``link`` redirects once the app's other pool is back too (each pool
    reconnects after its own back-off); a refused attempt does not use the link up."""
    deadline = time.monotonic() + RECOVERY_TIMEOUT
    while (location := (await client.get(link)).headers["location"]).endswith("=Configuration"):
        assert time.monotonic() < deadline, "the app did not reach the database again"
        await anyio.sleep(0.5)
    return str(location)


def count(dsn: str, query: str, *params: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(query.encode(), params).fetchone()
    assert row is not None
    return int(row[0])


def error_page(site: LiveServer, response: httpx.Response) -> str:
    """The ``error`` of the error page ``response`` redirects to."""
    assert response.status_code == 302, response.text
    location = response.headers["location"]
    assert location.startswith(f"{site.url}/auth/error?error="), location
    return location.partition("error=")[2]


async def test_a_database_that_goes_down_fails_closed_and_loses_nothing(
    site: LiveServer, smtp: MailServer, cluster: PostgresServer, database: str
) -> None:
    unique = uuid.uuid4().hex[:8]
    ada, bob, eve = (f"{name}-{unique}@example.com" for name in ("ada", "bob", "eve"))
    async with httpx.AsyncClient(base_url=site.url, timeout=30) as client:
        token = await sign_in(client, smtp, ada)
        pending = await request_link(client, smtp, bob)  # asked for, not yet followed
        log_before = len(site.log)

        cluster.stop()
        try:
            read = await read_session(site, token)
            assert read.status_code == 200
            assert read.json() is None
            assert not read.headers.get_list("set-cookie")  # the cookie is kept for later

            async with httpx.AsyncClient(timeout=30) as other:
                assert error_page(site, await other.get(pending)) == "Configuration"
                assert other.cookies.get(SESSION_COOKIE) is None
                page = await other.get(f"{site.url}/auth/error?error=Configuration")
                assert page.status_code == 500
                assert "Server error" in page.text
                assert "connect" not in page.text  # the cause is in the log only

            form = {"csrfToken": await csrf_token(client), "email": eve}
            assert error_page(site, await client.post("/auth/signin/email", data=form)) == (
                "Configuration"
            )
        finally:
            cluster.start()

    logged = site.log[log_before:]
    assert "[auth][error] SessionTokenError" in logged
    assert "[auth][error] AdapterError" in logged

    # Back up: the session, the pending link and the users are as they were.
    assert (await session_once_back(site, token))["user"]["email"] == ada
    async with httpx.AsyncClient(timeout=30) as other:
        assert await link_once_back(site, other, pending) == f"{site.url}/"
        assert (await other.get(f"{site.url}/auth/session")).json()["user"]["email"] == bob
    assert not [mail for mail in smtp.inbox.mail if eve in mail.rcpt_tos]
    for address, users in ((ada, 1), (bob, 1), (eve, 0)):
        assert count(database, "SELECT count(*) FROM users WHERE email = %s", address) == users
    tokens = "SELECT count(*) FROM verification_token WHERE identifier = %s"
    assert [count(database, tokens, address) for address in (ada, bob, eve)] == [0, 0, 0]


@pytest.fixture(scope="module")
def site_without_database(kind: str, smtp: MailServer) -> Iterator[LiveServer]:
    """``db_app`` on a PostgreSQL database whose port nothing listens on."""
    dsn = f"host=127.0.0.1 port={free_port()} user=postgres dbname=auth"
    url = as_adapter(kind, dsn) if kind == "sqlalchemy" else f"{dsn} connect_timeout=1"
    with serve_db_app("uvicorn", url, smtp.port, E2E_DB_TIMEOUT="1") as live:
        yield live


async def test_a_database_that_was_never_up_fails_closed(
    site_without_database: LiveServer, smtp: MailServer
) -> None:
    site = site_without_database
    read = await read_session(site, "some-session-token")
    assert read.status_code == 200
    assert read.json() is None
    async with httpx.AsyncClient(base_url=site.url, timeout=30) as client:
        form = {"csrfToken": await csrf_token(client), "email": "nobody@example.com"}
        response = await client.post("/auth/signin/email", data=form)
        assert error_page(site, response) == "Configuration"
        assert client.cookies.get(SESSION_COOKIE) is None
    assert not [mail for mail in smtp.inbox.mail if "nobody@example.com" in mail.rcpt_tos]
    assert "[auth][error] AdapterError" in site.log
