"""A user's own sessions and accounts with JWT sessions and revocation off (the default),
through a real server (``db_app`` under uvicorn, e-mail sign-in) on SQLite, Redis and the
SQLAlchemy store on SQLite:

* listing or ending sessions answers ``409 RevocationRequired`` naming the fix (no list can
  be kept, no JWT ended), never a 500; the security page renders without the list;
* the cookie of a deleted user (still a session: nothing revokes it) is refused by the
  account routes, and the user who signs up next gets another id;
* a stray session chunk past the cap is deleted by a session read and by a sign-in."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import httpx
import pytest
from live_server import LiveServer
from mail_server import MailServer, mail_server
from sqlalchemy import create_engine

from io_bindings.db.sqlalchemy import models
from tests.io_bindings.email_sign_in import (
    SESSION_COOKIE,
    csrf_token,
    new_database,
    request_link,
    serve_db_app,
    sign_in,
)

pytestmark = pytest.mark.e2e
JSON = {"accept": "application/json"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@contextmanager
def new_store(
    kind: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The ``E2E_DATABASE`` of a new database of ``kind``, its tables made."""
    if kind != "sqlalchemy-sqlite":
        with new_database(kind, request, tmp_path_factory) as url:
            yield url
        return
    url = f"sqlite:///{tmp_path_factory.mktemp('sqlalchemy') / 'auth.db'}"
    engine = create_engine(url)
    models.metadata.create_all(engine)
    engine.dispose()
    yield f"sqlalchemy:{url}"


@pytest.fixture(scope="module", params=["sqlite", "redis", "sqlalchemy-sqlite"])
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, smtp: MailServer
) -> Iterator[LiveServer]:
    with (
        new_store(request.param, request, tmp_path_factory) as database,
        serve_db_app("uvicorn", database, smtp.port, E2E_STRATEGY="jwt") as live,
    ):
        yield live
        log = live.log
    assert '" 500' not in log, log  # uvicorn's access lines: no request answered 500


@pytest.fixture
async def client(site: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=site.url, timeout=15) as browser:
        yield browser


def address(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:10]}@example.com"  # one database serves the module


async def post_json(client: httpx.AsyncClient, route: str, **fields: str) -> httpx.Response:
    body = {"csrfToken": await csrf_token(client), **fields}
    return await client.post(f"/auth/{route}", json=body)


@pytest.mark.anyio
async def test_sessions_cannot_be_listed_or_ended_and_the_answer_names_the_fix(
    client: httpx.AsyncClient, smtp: MailServer, site: LiveServer
) -> None:
    mine = address("ada")
    await sign_in(client, smtp, mine)
    refusal = {
        "error": "RevocationRequired",
        "message": "listing and ending JWT sessions needs session={'revocation': True}",
    }
    for response in (
        await client.get("/auth/sessions"),
        await post_json(client, "revoke-other-sessions"),
        await post_json(client, "revoke-session", id="x"),
    ):
        assert (response.status_code, response.json()) == (409, refusal)
    page = await client.get("/auth/security")
    assert page.status_code == 200
    assert f"Signed in as {mine}" in page.text
    assert (await client.get("/auth/session")).json()["user"]["email"] == mine
    assert "[auth][error] RevocationRequired: listing and ending JWT sessions" in site.log


@pytest.mark.anyio
async def test_a_deleted_users_cookie_is_refused_and_the_next_user_is_someone_else(
    client: httpx.AsyncClient, smtp: MailServer, site: LiveServer
) -> None:
    gone = address("gone")
    cookie = await sign_in(client, smtp, gone)
    deleted = await post_json(client, "delete-user")
    assert deleted.status_code == 200, deleted.text
    async with (
        httpx.AsyncClient(base_url=site.url, timeout=15) as stale,
        httpx.AsyncClient(base_url=site.url, timeout=15) as newcomer,
    ):
        stale.cookies.set(SESSION_COOKIE, cookie)
        assert (await stale.get("/auth/session")).json()["user"]["email"] == gone  # a JWT
        await sign_in(newcomer, smtp, address("next"))
        for response in (
            await stale.get("/auth/sessions"),
            await stale.get("/auth/accounts"),
            await post_json(stale, "delete-user"),
        ):
            assert response.status_code == 401, response.text
            assert response.json()["error"] == "SessionRequired"
        page = await stale.get("/auth/security")
        assert page.status_code == 302
        assert "/auth/signin" in page.headers["location"]
        assert (await newcomer.get("/auth/accounts")).status_code == 200
        assert (await newcomer.get("/auth/session")).json() is not None


def deletes(response: httpx.Response, name: str) -> bool:
    return any(
        line.startswith(f"{name}=;") and "Max-Age=0" in line
        for line in response.headers.get_list("set-cookie")
    )


@pytest.mark.anyio
async def test_a_stray_session_chunk_is_deleted_and_the_sign_in_works(
    site: LiveServer, smtp: MailServer
) -> None:
    stray = f"{SESSION_COOKIE}.16"
    mine = address("stray")
    async with httpx.AsyncClient(base_url=site.url, timeout=15) as browser:
        read = await browser.get("/auth/session", headers={"cookie": f"{stray}=left-over"})
        assert read.json() is None
        assert deletes(read, stray)
        link = await request_link(browser, smtp, mine)
        signed = await browser.get(link, headers={"cookie": f"{stray}=left-over"})
        assert signed.status_code == 302
        assert deletes(signed, stray)
        session = signed.cookies.get(SESSION_COOKIE)
        assert session
        cookie = {"cookie": f"{SESSION_COOKIE}={session}"}
        after = await browser.get("/auth/session", headers=cookie)
        assert after.json()["user"]["email"] == mine
