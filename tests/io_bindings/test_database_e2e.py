"""Database sessions through a real server, on SQLite, PostgreSQL and Redis: read, update,
sliding expiry throttled by ``update_age``, expiry, sign-out, and e-mail tokens that work
exactly once even when two requests race."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import httpx
import pytest
from db_app import adapter_for
from live_server import SERVERS, LiveServer
from mail_server import MailServer, mail_server

from io_bindings.db._base import StoreAdapter
from tests.io_bindings.email_sign_in import (
    DATABASE_KINDS,
    SESSION_COOKIE,
    csrf_token,
    new_database,
    read_session,
    request_link,
    serve_db_app,
    sign_in,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MAX_AGE = timedelta(days=30)  # the default session.max_age
UPDATE_AGE = timedelta(days=1)  # the default session.update_age


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the test process only drives HTTP; the servers run asyncio and trio


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(scope="module", params=DATABASE_KINDS)
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``E2E_DATABASE`` of a new database, its schema made before any server opens it."""
    with new_database(request.param, request, tmp_path_factory) as url:
        yield url


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the server writes its ``session`` events, one JSON line each."""
    return tmp_path_factory.mktemp("events") / "events.jsonl"


@pytest.fixture(scope="module")
def writes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the server writes the token of every ``update_session`` call, one a line."""
    return tmp_path_factory.mktemp("writes") / "writes.txt"


@pytest.fixture(scope="module", params=sorted(SERVERS))
def site(
    request: pytest.FixtureRequest, database: str, smtp: MailServer, events: Path, writes: Path
) -> Iterator[LiveServer]:
    events.unlink(missing_ok=True)
    paths = {"E2E_EVENTS": str(events), "E2E_WRITES": str(writes)}
    with serve_db_app(request.param, database, smtp.port, **paths) as live:
        yield live


@pytest.fixture
async def db(database: str) -> AsyncIterator[StoreAdapter]:
    """The same database, seen by the test."""
    async with adapter_for(database) as adapter:
        yield adapter


@pytest.fixture
async def client(site: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=site.url, timeout=15) as browser:
        yield browser


def deletes_session_cookie(response: httpx.Response) -> bool:
    return any(
        header.startswith(f"{SESSION_COOKIE}=;") and "Max-Age=0" in header
        for header in response.headers.get_list("set-cookie")
    )


async def seed_session(db: StoreAdapter, name: str, expires: datetime) -> tuple[str, str]:
    """A new user and session expiring at ``expires``: (address, session token).

    Both are unique, because one database serves every server the module runs on.
    """
    unique = uuid.uuid4().hex[:12]
    address, token = f"{name}-{unique}@example.com", f"{name}-session-{unique}"
    user = await db.create_user({"id": "", "email": address, "email_verified": None})
    await db.create_session({"session_token": token, "user_id": user["id"], "expires": expires})
    return address, token


async def test_session_read_update_and_sign_out(
    client: httpx.AsyncClient, smtp: MailServer, db: StoreAdapter, events: Path
) -> None:
    token = await sign_in(client, smtp, "ada@example.com")
    stored = await db.get_session_and_user(token)
    assert stored is not None
    assert stored["user"]["email"] == "ada@example.com"
    assert stored["user"]["email_verified"] is not None

    session = (await client.get("/auth/session")).json()
    assert session["user"]["email"] == "ada@example.com"
    assert session["user_id"] == stored["user"]["id"]
    assert session["nickname"] is None
    expires = datetime.fromisoformat(session["expires"].replace("Z", "+00:00"))
    assert abs(expires - stored["session"]["expires"]) < timedelta(seconds=1)

    body = {"csrfToken": await csrf_token(client), "data": {"nickname": "Countess"}}
    updated = await client.post("/auth/session", json=body)
    assert updated.status_code == 200
    assert updated.json()["nickname"] == "Countess"
    assert updated.json()["user_id"] == stored["user"]["id"]

    lines = (await anyio.Path(events).read_text()).splitlines()
    emitted = [json.loads(line) for line in lines]
    assert any(event["session"] and event["token"] is None for event in emitted)

    form = {"csrfToken": await csrf_token(client)}
    signed_out = await client.post("/auth/signout", data=form)
    assert signed_out.status_code == 302
    assert client.cookies.get(SESSION_COOKIE) is None
    assert await db.get_session_and_user(token) is None
    assert await db.get_user_by_email("ada@example.com") is not None  # the user stays
    assert (await client.get("/auth/session")).json() is None


async def test_expiry_slides_only_once_per_update_age(site: LiveServer, db: StoreAdapter) -> None:
    now = datetime.now(UTC)
    fresh = now + MAX_AGE
    stale = now + MAX_AGE - UPDATE_AGE - timedelta(minutes=5)
    fresh_user = await seed_session(db, "fresh", fresh)
    stale_user = await seed_session(db, "stale", stale)
    for _ in range(3):
        for address, token in (fresh_user, stale_user):
            session = (await read_session(site, token)).json()
            assert session["user"]["email"] == address
    kept = await db.get_session_and_user(fresh_user[1])
    assert kept is not None
    assert abs(kept["session"]["expires"] - fresh) < timedelta(milliseconds=1)
    extended = await db.get_session_and_user(stale_user[1])
    assert extended is not None
    assert extended["session"]["expires"] > stale + UPDATE_AGE
    assert extended["session"]["expires"] <= datetime.now(UTC) + MAX_AGE


async def test_concurrent_reads_of_a_stale_session_extend_it_once(
    site: LiveServer, db: StoreAdapter, writes: Path
) -> None:
    """50 reads at once of a session past ``update_age``: one ``update_session`` write (the
    binding's single flight), every read answered with the session and its new cookie."""
    stale = datetime.now(UTC) + MAX_AGE - UPDATE_AGE - timedelta(minutes=5)
    address, token = await seed_session(db, "crowd", stale)
    responses: list[httpx.Response] = []

    async def read() -> None:
        responses.append(await read_session(site, token))

    async with anyio.create_task_group() as tasks:
        for _ in range(50):
            tasks.start_soon(read)
    assert [r.json()["user"]["email"] for r in responses] == [address] * 50
    written = (await anyio.Path(writes).read_text()).splitlines()
    assert written.count(token) == 1
    extended = await db.get_session_and_user(token)
    assert extended is not None
    assert extended["session"]["expires"] > stale + UPDATE_AGE
    for _ in range(3):  # and later reads find it fresh
        assert (await read_session(site, token)).json()["user"]["email"] == address
    assert (await anyio.Path(writes).read_text()).splitlines().count(token) == 1


async def test_an_expired_session_is_deleted_on_read(site: LiveServer, db: StoreAdapter) -> None:
    expired = datetime.now(UTC) - timedelta(minutes=1)
    _, token = await seed_session(db, "late", expired)
    response = await read_session(site, token)
    assert response.json() is None
    assert deletes_session_cookie(response)
    assert await db.delete_session(token) is None  # the read deleted it


async def test_an_unknown_session_token_is_no_session(site: LiveServer) -> None:
    response = await read_session(site, "made-up-token")
    assert response.json() is None
    assert deletes_session_cookie(response)


async def test_two_racing_uses_of_one_link_sign_in_exactly_once(
    client: httpx.AsyncClient, smtp: MailServer, site: LiveServer
) -> None:
    for round_ in range(5):
        link = await request_link(client, smtp, f"racer{round_}@example.com")
        results: list[httpx.Response] = []

        async def follow(results: list[httpx.Response] = results, link: str = link) -> None:
            async with httpx.AsyncClient(timeout=15) as browser:
                results.append(await browser.get(link))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(follow)
            tasks.start_soon(follow)
        locations = sorted(response.headers["location"] for response in results)
        assert locations == [f"{site.url}/", f"{site.url}/auth/error?error=Verification"]
        winners = [r for r in results if SESSION_COOKIE in r.cookies]
        assert len(winners) == 1
