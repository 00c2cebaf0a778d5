"""E-mail sign-in through a real server (uvicorn on asyncio, hypercorn on trio): the link is
read from a real SMTP server's inbox, followed, and works only once."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import closing
from pathlib import Path

import anyio.to_thread
import httpx
import pytest
from live_server import SERVERS, LiveServer, free_port
from mail_server import MailServer, mail_server

from tests.io_bindings.email_sign_in import (
    SESSION_COOKIE,
    csrf_token,
    link_query,
    origin,
    request_link,
    serve_db_app,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the test process only drives HTTP; the servers run asyncio and trio


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(scope="module", params=sorted(SERVERS))
def site(
    request: pytest.FixtureRequest, smtp: MailServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """``db_app`` on SQLite, sending through :func:`smtp`, on each server."""
    database = tmp_path_factory.mktemp("email-e2e") / "auth.db"
    with serve_db_app(request.param, f"sqlite:{database}", smtp.port) as live:
        yield live


@pytest.fixture
async def client(site: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=site.url, timeout=15) as browser:
        yield browser


def browser() -> httpx.AsyncClient:
    """Another browser (or device): its own, empty cookie jar."""
    return httpx.AsyncClient(timeout=15)


async def test_sign_in_page_offers_email(client: httpx.AsyncClient) -> None:
    page = await client.get("/auth/signin")
    assert page.status_code == 200
    assert 'id="input-email-for-email-provider"' in page.text
    assert f'action="{origin(client)}/auth/signin/email"' in page.text


async def test_the_link_from_the_mail_signs_in_once(
    client: httpx.AsyncClient, smtp: MailServer, site: LiveServer
) -> None:
    link = await request_link(client, smtp, "  Ada.Lovelace@Example.COM ", callback_url="/welcome")
    mail = smtp.inbox.mail[-1]
    host = site.url.removeprefix("http://")
    assert mail.rcpt_tos == ["ada.lovelace@example.com"]
    assert mail.message["Subject"] == f"Sign in to {host}"
    assert mail.message["From"] == "Shop <no-reply@shop.example>"
    assert link.startswith(f"{site.url}/auth/callback/email?")
    query = link_query(link)
    assert query["email"] == "ada.lovelace@example.com"
    assert query["callbackUrl"] == f"{site.url}/welcome"
    assert re.fullmatch(r"[0-9a-f]{64}", query["token"])

    # Opened on another device: the link needs no cookie of the browser that asked for it.
    async with browser() as phone:
        signed_in = await phone.get(link)
        assert signed_in.status_code == 302, signed_in.text
        assert signed_in.headers["location"] == f"{site.url}/welcome"
        assert phone.cookies.get(SESSION_COOKIE)
        session = (await phone.get(f"{site.url}/auth/session")).json()
        assert session["user"]["email"] == "ada.lovelace@example.com"
        assert session["user_id"]

        again = await phone.get(link)
        assert again.status_code == 302
        assert again.headers["location"] == f"{site.url}/auth/error?error=Verification"
    assert (await client.get("/auth/session")).json() is None  # the asking browser is not


async def test_a_second_link_for_the_same_address_signs_in_the_same_user(
    client: httpx.AsyncClient, smtp: MailServer, site: LiveServer
) -> None:
    user_ids = []
    for _ in range(2):
        link = await request_link(client, smtp, "grace@example.com")
        async with browser() as other:
            assert (await other.get(link)).status_code == 302
            user_ids.append((await other.get(f"{site.url}/auth/session")).json()["user_id"])
    assert user_ids[0] == user_ids[1]


async def test_asking_does_not_reveal_whether_an_address_has_an_account(
    client: httpx.AsyncClient, smtp: MailServer
) -> None:
    async with browser() as other:
        link = await request_link(client, smtp, "known@example.com")
        assert (await other.get(link)).status_code == 302
    answers = []
    for address in ("known@example.com", "unknown@example.com"):
        form = {"csrfToken": await csrf_token(client), "email": address}
        response = await client.post("/auth/signin/email", data=form)
        answers.append((response.status_code, response.headers["location"], response.text))
        await anyio.to_thread.run_sync(smtp.inbox.next_for, address)  # both get a link
    assert answers[0] == answers[1]


async def test_a_changed_token_or_address_is_refused_and_the_link_still_works(
    client: httpx.AsyncClient, smtp: MailServer, site: LiveServer
) -> None:
    link = await request_link(client, smtp, "alan@example.com")
    token = link_query(link)["token"]
    forged_token = link.replace(token, ("0" if token[0] != "0" else "1") + token[1:])
    forged_address = link.replace("email=alan%40example.com", "email=eve%40example.com")
    assert forged_address != link
    for forged in (forged_token, forged_address):
        async with browser() as other:
            refused = await other.get(forged)
            assert refused.status_code == 302
            assert refused.headers["location"] == f"{site.url}/auth/error?error=Verification"
            assert other.cookies.get(SESSION_COOKIE) is None
    async with browser() as other:
        assert (await other.get(link)).headers["location"] == f"{site.url}/"
        session = (await other.get(f"{site.url}/auth/session")).json()
        assert session["user"]["email"] == "alan@example.com"


@pytest.fixture(scope="module")
def mailless_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("email-e2e-down") / "auth.db"


@pytest.fixture(scope="module")
def site_without_mail(mailless_db: Path) -> Iterator[LiveServer]:
    """``db_app`` whose SMTP server is down (nothing listens on its port)."""
    with serve_db_app("uvicorn", f"sqlite:{mailless_db}", free_port()) as live:
        yield live


async def test_a_mail_server_that_is_down_gives_the_error_page(
    site_without_mail: LiveServer, mailless_db: Path
) -> None:
    async with httpx.AsyncClient(base_url=site_without_mail.url, timeout=15) as other:
        form = {"csrfToken": await csrf_token(other), "email": "ada@example.com"}
        response = await other.post("/auth/signin/email", data=form)
        assert response.status_code == 302
        location = response.headers["location"]
        assert location == f"{site_without_mail.url}/auth/error?error=Configuration"
        assert (await other.get(location)).status_code == 500
    assert "could not send the sign-in e-mail through 127.0.0.1:" in site_without_mail.log

    def tokens_left() -> int:
        with closing(sqlite3.connect(mailless_db)) as conn:
            count: int = conn.execute("SELECT count(*) FROM verification_tokens").fetchone()[0]
            return count

    assert await anyio.to_thread.run_sync(tokens_left) == 0  # the unsent link's token is gone
