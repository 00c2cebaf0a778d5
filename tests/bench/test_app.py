"""The benchmark's ASGI apps answer what the figures assume they answer."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from bench.app import USER, config, create_app, create_repeat_app, session_cookie
from bench.bare import (
    create_contract_app,
    create_contract_csrf_app,
    create_contract_reissue_app,
    create_decrypt_app,
    create_straight_app,
    create_straight_csrf_app,
    create_straight_reissue_app,
)
from io_bindings.anyio import AuthApp
from sansio_auth.testing import seeded_entropy

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _get(app: object, path: str, cookie: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        return await client.get(path, headers={"cookie": cookie})


@pytest.mark.parametrize("times", ["1", "3"])
async def test_the_repeat_app_answers_the_session(
    times: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCH_REPEAT", times)
    response = await _get(create_repeat_app(), "/auth/session", session_cookie())
    assert response.status_code == 200
    assert response.json()["user"]["name"] == USER["name"]


async def test_the_decrypt_app_needs_a_valid_session_token() -> None:
    response = await _get(create_decrypt_app(), "/bare", session_cookie())
    assert response.json() == {"ok": True}
    with pytest.raises(Exception, match="tag mismatch"):
        await _get(create_decrypt_app(), "/bare", session_cookie()[:-8] + "AAAAAAAA")


@pytest.mark.parametrize("factory", [create_straight_app, create_contract_app])
async def test_the_straight_line_read_answers_as_the_auth_app(factory: Any) -> None:
    cookie = session_cookie()
    ours = await _get(create_app(), "/auth/session", cookie)
    straight = await _get(factory(), "/auth/session", cookie)
    assert straight.content == ours.content
    assert straight.headers.multi_items() == ours.headers.multi_items()


@pytest.mark.parametrize("factory", [create_straight_reissue_app, create_contract_reissue_app])
async def test_the_straight_line_reissue_answers_as_the_auth_app_with_update_age_0(
    factory: Any,
) -> None:
    cookie, now = session_cookie(), time.time() + 5  # a new iat, exp, jti, expiry
    ours = AuthApp(config(update_age=0), env={}, clock=lambda: now, entropy=seeded_entropy(1))
    straight = factory(clock=lambda: now, entropy=seeded_entropy(1))
    expected = await _get(ours, "/auth/session", cookie)
    answer = await _get(straight, "/auth/session", cookie)
    assert answer.content == expected.content
    assert answer.headers.multi_items() == expected.headers.multi_items()
    assert "authjs.session-token=" in answer.headers["set-cookie"]
    assert answer.headers["set-cookie"] != cookie  # re-issued


@pytest.mark.parametrize("factory", [create_straight_csrf_app, create_contract_csrf_app])
async def test_the_straight_line_csrf_answers_as_the_auth_app(factory: Any) -> None:
    """The same headers, and a token whose cookie the auth app accepts (the token is new)."""
    ours = await _get(create_app(), "/auth/csrf", "")
    straight = await _get(factory(), "/auth/csrf", "")
    names = [name for name, _ in straight.headers.multi_items()]
    assert names == [name for name, _ in ours.headers.multi_items()]
    token = straight.json()["csrfToken"]
    assert len(token) == len(ours.json()["csrfToken"]) == 64
    cookie = straight.headers["set-cookie"]
    assert cookie.split("=", 1)[1].split("%7C")[0] == token
    assert cookie.split(";", 1)[1] == ours.headers["set-cookie"].split(";", 1)[1]
    again = await _get(create_app(), "/auth/csrf", cookie.split(";", 1)[0])
    assert again.json()["csrfToken"] == token  # the auth app reads the cookie as its own
    assert "set-cookie" not in again.headers
