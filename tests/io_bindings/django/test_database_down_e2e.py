"""The Django ORM store when PostgreSQL goes down under a running Django project, or was never
there (``tests/io_bindings/test_database_down_e2e.py``'s pattern, on the users example under
uvicorn and ``runserver``, Django's connection pool in between): every request that needs
the database fails closed (error page, or a ``null`` session with the cookie kept), the
cause is logged, and when the server is back nothing was lost and nothing half-written."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager

import httpx
import psycopg
import pytest
from db_servers import PostgresServer, postgres_cluster
from live_server import LiveServer, free_port, serve
from mail_server import MailServer

from tests.io_bindings.django.conftest import CRASHES, SECRET
from tests.io_bindings.django.test_members_example_e2e import PROJECT, command
from tests.io_bindings.email_sign_in import (
    SESSION_COOKIE,
    csrf_token,
    read_session,
    request_link,
    sign_in,
)
from tests.io_bindings.test_database_down_e2e import error_page, link_once_back, session_once_back

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster of this module's own: the tests stop and start it."""
    with postgres_cluster() as server:
        yield server


@pytest.fixture(scope="module")
def database(cluster: PostgresServer) -> str:
    dsn = cluster.create_database()
    migrate = [sys.executable, str(PROJECT / "manage.py"), "migrate", "--no-input"]
    env = {**os.environ, "EXAMPLE_POSTGRES": dsn}
    done = subprocess.run(migrate, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return dsn


def serve_example(mode: str, dsn: str, smtp: MailServer) -> AbstractContextManager[LiveServer]:
    port = free_port()
    env = {"AUTH_SECRET": SECRET, "EXAMPLE_POSTGRES": dsn, "EXAMPLE_DB_TIMEOUT": "2",
           "EXAMPLE_SMTP_PORT": str(smtp.port)}  # fmt: skip
    return serve(command(mode, port), port, env=env)


@pytest.fixture(scope="module", params=["asgi", "wsgi"])
def site(request: pytest.FixtureRequest, database: str, smtp: MailServer) -> Iterator[LiveServer]:
    with serve_example(request.param, database, smtp) as live:
        yield live
        log = live.log
    for crash in CRASHES:
        assert crash not in log, log


def count(dsn: str, query: str, *params: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(query.encode(), params).fetchone()
    assert row is not None
    return int(row[0])


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
            form = {"csrfToken": await csrf_token(client), "email": eve}
            response = await client.post("/auth/signin/email", data=form)
            assert error_page(site, response) == "Configuration"
        finally:
            cluster.start()

    logged = site.log[log_before:]
    assert "[auth][error] SessionTokenError" in logged
    assert "[auth][error] AdapterError" in logged

    assert (await session_once_back(site, token))["user"]["email"] == ada
    async with httpx.AsyncClient(timeout=30) as other:
        assert await link_once_back(site, other, pending) == f"{site.url}/"
        assert (await other.get(f"{site.url}/auth/session")).json()["user"]["email"] == bob
    assert not [mail for mail in smtp.inbox.mail if eve in mail.rcpt_tos]
    users = "SELECT count(*) FROM members_user WHERE email = %s"
    assert [count(database, users, address) for address in (ada, bob, eve)] == [1, 1, 0]
    tokens = "SELECT count(*) FROM sansio_auth_verification_token WHERE identifier = %s"
    assert [count(database, tokens, address) for address in (ada, bob, eve)] == [0, 0, 0]


async def test_a_database_that_was_never_up_fails_closed(smtp: MailServer) -> None:
    dsn = f"host=127.0.0.1 port={free_port()} user=postgres dbname=members"
    with serve_example("asgi", dsn, smtp) as site:
        read = await read_session(site, "some-session-token")
        assert read.status_code == 200
        assert read.json() is None
        async with httpx.AsyncClient(base_url=site.url, timeout=30) as client:
            form = {"csrfToken": await csrf_token(client), "email": "nobody@example.com"}
            response = await client.post("/auth/signin/email", data=form)
            assert error_page(site, response) == "Configuration"
            assert client.cookies.get(SESSION_COOKIE) is None
        assert "[auth][error] AdapterError" in site.log
    assert not [mail for mail in smtp.inbox.mail if "nobody@example.com" in mail.rcpt_tos]
