"""The ceiling of the database rows answers what the auth app answers for the same session."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from bench.app import create_database_app
from bench.database import SESSION_COOKIE_HEADER, seed_once
from bench.database_read import create_app
from io_bindings.db.sqlite import SQLiteAdapter

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _get(app: object, cookie: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        return await client.get("/auth/session", headers={"cookie": cookie})


async def test_the_read_alone_answers_as_the_auth_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / "auth.db"
    await seed_once(SQLiteAdapter(database))
    monkeypatch.setenv("BENCH_SQLITE", str(database))
    ours = await _get(create_database_app(), SESSION_COOKIE_HEADER)
    alone = await _get(create_app(), SESSION_COOKIE_HEADER)
    assert ours.status_code == alone.status_code == 200
    assert alone.content == ours.content
    wrong = await _get(create_app(), SESSION_COOKIE_HEADER + "x")
    assert wrong.status_code == 401
