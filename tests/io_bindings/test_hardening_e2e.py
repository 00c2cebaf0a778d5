"""Rate limits and deadlines through real servers (uvicorn, hypercorn on trio, the standard
library's threaded WSGI server) with the counters in process memory, SQLite, PostgreSQL
and Redis (``tests/support/hardening_app.py``)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg
import pytest
import wsgi_server
from db_servers import PostgresServer
from live_server import SERVERS, LiveServer, csrf_token, free_port, serve

from tests.io_bindings.email_sign_in import DATABASE_KINDS, make_schema, new_database

pytestmark = pytest.mark.e2e

COMMANDS = {**SERVERS, "wsgi": wsgi_server.command}


@contextmanager
def hardening_server(server: str, database: str = "", **env: str) -> Iterator[LiveServer]:
    port = free_port()
    app = "hardening_app:wsgi" if server == "wsgi" else "hardening_app:asgi"
    environment = {"HARDENING_DATABASE": database, **env}
    with serve(COMMANDS[server](app, port), port, env=environment) as live:
        yield live
        log = live.log
    assert "unexpected failure serving" not in log, log


@pytest.fixture(scope="module", params=["memory", *DATABASE_KINDS])
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``HARDENING_DATABASE``: empty (the runtime's memory) or a new database, its schema
    made before a server opens it."""
    if request.param == "memory":
        yield ""
        return
    with new_database(request.param, request, tmp_path_factory) as url:
        yield url


def attempt(
    client: httpx.Client,
    username: str,
    password: str = "wrong",
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    data = {"csrfToken": csrf_token(client), "username": username, "password": password}
    return client.post("/auth/callback/credentials", data=data, headers=headers)


@pytest.mark.parametrize("server", ["uvicorn", "hypercorn-trio", "wsgi"])
def test_an_account_gets_429_past_its_limit(database: str, server: str, tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    account = f"ada-{uuid.uuid4().hex[:8]}"
    with (
        hardening_server(server, database, HARDENING_EVENTS=str(events)) as live,
        httpx.Client(base_url=live.url, timeout=10) as client,
    ):
        for _ in range(3):
            refused = attempt(client, account)
            assert refused.status_code == 302
            assert "error=CredentialsSignin" in refused.headers["location"]
        limited = attempt(client, account, password="right")
        assert limited.status_code == 429
        assert 55 <= int(limited.headers["retry-after"]) <= 60
        assert "Too many attempts" in limited.text
        script = attempt(client, account, headers={"x-auth-return-redirect": "1"})
        assert script.status_code == 429
        assert script.json()["url"].endswith("/auth/signin?error=RateLimited")
        other = attempt(client, f"grace-{account}", password="right")
        assert other.status_code == 302
        assert client.get("/auth/session").json()["user"]["email"] == f"grace-{account}@example.com"
    [event] = [json.loads(line) for line in events.read_text().splitlines()]
    assert event["limit"] == "credentials_per_account"
    assert event["identifier"] == account
    assert event["client"] == "127.0.0.1"


@pytest.mark.parametrize("database", DATABASE_KINDS, indirect=True)
@pytest.mark.parametrize("server", ["uvicorn"])
def test_processes_on_one_store_share_the_counters(database: str, server: str) -> None:
    """Two server processes on one database: a fleet counts every attempt once (process
    memory, the default without a store, counts per process)."""
    account = f"ada-{uuid.uuid4().hex[:8]}"
    with (
        hardening_server(server, database) as first,
        hardening_server(server, database) as second,
        httpx.Client(base_url=first.url, timeout=10) as one,
        httpx.Client(base_url=second.url, timeout=10) as two,
    ):
        assert [attempt(c, account).status_code for c in (one, two, one)] == [302, 302, 302]
        assert attempt(two, account).status_code == 429
        assert attempt(one, account).status_code == 429


@pytest.mark.parametrize("server", ["uvicorn", "hypercorn-trio", "wsgi"])
def test_a_callback_that_hangs_ends_on_the_error_page_at_its_deadline(server: str) -> None:
    with (
        hardening_server(server) as live,
        httpx.Client(base_url=live.url, timeout=10) as client,
    ):
        started = time.monotonic()
        answer = attempt(client, "slow", password="right")
        took = time.monotonic() - started
        assert answer.status_code == 302
        assert answer.headers["location"].endswith("/auth/error?error=Configuration")
        assert took < 2.5  # the deadline is 0.5 s; `authorize` would take a minute
        assert client.get("/auth/session").json() is None
        log = live.log
    assert "DeadlineExceeded: callback authorize did not answer within 0.5 s" in log


@pytest.mark.parametrize("server", ["uvicorn", "wsgi"])
def test_a_sync_callback_that_overruns_fails_when_it_returns(server: str) -> None:
    """A plain function cannot be interrupted: the request ends with the error, late."""
    with (
        hardening_server(server) as live,
        httpx.Client(base_url=live.url, timeout=10) as client,
    ):
        data = {"csrfToken": csrf_token(client), "seconds": "1.0"}
        started = time.monotonic()
        answer = client.post("/auth/callback/blocking", data=data)
        took = time.monotonic() - started
        assert answer.headers["location"].endswith("/auth/error?error=Configuration")
        assert 1.0 <= took < 3
        data = {"csrfToken": csrf_token(client), "seconds": "0"}
        assert client.post("/auth/callback/blocking", data=data).status_code == 302
        assert client.get("/auth/session").json()["user"]["email"] == "blocker@example.com"


@pytest.mark.parametrize("server", ["uvicorn", "hypercorn-trio", "wsgi"])
def test_a_counter_store_stuck_on_a_lock_is_cut_and_fails_open(
    server: str, postgres_server: PostgresServer
) -> None:
    """PostgreSQL with the counters' table locked: each counter call is abandoned at the
    adapter deadline (0.5 s), logged, and the sign-in goes on."""
    dsn = make_schema(postgres_server.create_database())
    try:
        with (
            hardening_server(server, dsn) as live,
            httpx.Client(base_url=live.url, timeout=10) as client,
            psycopg.connect(dsn) as locker,
        ):
            token = csrf_token(client)
            locker.execute("LOCK TABLE rate_limit_counters IN ACCESS EXCLUSIVE MODE")
            started = time.monotonic()
            form = {"csrfToken": token, "username": "ada", "password": "right"}
            answer = client.post("/auth/callback/credentials", data=form)
            took = time.monotonic() - started
            locker.rollback()
            assert answer.status_code == 302, answer.text
            assert "error" not in answer.headers["location"]
            assert took < 2.5  # two counter calls (client, account), 0.5 s each at most
            log = live.log
        assert log.count("DeadlineExceeded") == 2
    finally:
        postgres_server.drop_database(dsn)
