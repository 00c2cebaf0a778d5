"""``get_session`` on aiohttp requests made in process: the session read once per request
(also when the request's storage holds other keys), a re-issued cookie waiting for the
response, a bad ``Host`` read as signed out, and a served request freed without the
garbage collector (its auth state holds no reference back to it)."""

from __future__ import annotations

import gc
import secrets
import time
import weakref
from collections.abc import Iterator

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from io_bindings.aiohttp import get_session, send_session_cookies
from sansio_auth import AuthConfig, jwt

pytestmark = pytest.mark.anyio
SECRET = "aiohttp-get-session-secret-0123456789abcdef"
SESSION_COOKIE = "authjs.session-token"
CONFIG = AuthConfig(secret=SECRET, trust_host=True)
REISSUING = AuthConfig(secret=SECRET, trust_host=True, session={"update_age": 0})
APP_KEY = web.RequestKey("app.key", str)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def no_collector() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def signed_in(host: str = "app.test") -> web.Request:
    token = jwt.encode({"sub": "1", "email": "ann@example.com"}, SECRET, SESSION_COOKIE,
                       now=time.time(), entropy=secrets.token_bytes)  # fmt: skip
    return make_mocked_request("GET", "/me", headers={"host": host,
                               "cookie": f"{SESSION_COOKIE}={token}"})  # fmt: skip


async def test_the_session_is_read_once_per_request() -> None:
    request = signed_in()
    session = await get_session(request, CONFIG)
    assert session is not None
    assert session["user"]["email"] == "ann@example.com"
    assert await get_session(request, CONFIG) is session
    other = signed_in()
    other[APP_KEY] = "kept"  # the storage holds another key before the state is made
    first = await get_session(other, CONFIG)
    assert first == session
    assert await get_session(other, CONFIG) is first
    assert other[APP_KEY] == "kept"


async def test_a_reissued_cookie_waits_for_the_response() -> None:
    request = signed_in()
    assert await get_session(request, REISSUING) is not None
    response = web.Response()
    await send_session_cookies(request, response)
    assert [c.split("=")[0] for c in response.headers.getall("Set-Cookie")] == [SESSION_COOKIE]
    again = web.Response()
    await send_session_cookies(request, again)  # sent once
    assert "Set-Cookie" not in again.headers
    untouched = web.Response()
    await send_session_cookies(make_mocked_request("GET", "/"), untouched)
    assert "Set-Cookie" not in untouched.headers


async def test_a_bad_host_reads_as_signed_out() -> None:
    request = signed_in(host="evil.example/x")
    assert await get_session(request, CONFIG) is None
    assert await get_session(request, CONFIG) is None


@pytest.mark.usefixtures("no_collector")
async def test_a_request_read_is_freed_by_reference_counting() -> None:
    request = signed_in()
    assert await get_session(request, CONFIG) is not None
    freed = weakref.ref(request)
    del request
    assert freed() is None
