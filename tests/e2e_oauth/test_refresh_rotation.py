"""Refresh-token rotation against the real OP (``oidc-provider`` with ``rotateRefreshToken``:
each refresh consumes the old refresh token, and its reuse revokes the whole grant).

The app is the anyio binding's :class:`~io_bindings.anyio.Auth` in process, with a clock the
test moves past the access token's expiry; everything else is real (the OP over HTTP, our
HTTP client, the adapters). Runs on asyncio and trio.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import anyio
import httpx
import pytest
from db_servers import redis_server

from io_bindings.anyio import Auth
from io_bindings.db.redis import RedisAdapter
from io_bindings.db.sqlite import SQLiteAdapter
from io_bindings.http import AnyioBackend, HTTPClient
from sansio_auth import AuthConfig, Request, Response, jwt
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.oauth.id_token import unverified_claims
from tests.oidc_op.provider import OpenIDProvider

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ORIGIN = "http://app.test"
SECRET = "a-test-secret-that-is-long-enough-for-hkdf"
SESSION = "authjs.session-token"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Clock:
    def __init__(self) -> None:
        import time

        self.offset = 0.0
        self._time = time.time

    def __call__(self) -> float:
        return self._time() + self.offset


@dataclass
class CountingTransport:
    """Our HTTP client, counting the refresh-token grants it sends."""

    client: HTTPClient
    token_endpoint: str
    refreshes: list[str] = field(default_factory=list)

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        if request.url == self.token_endpoint:
            form = dict(parse_qsl(request.body.decode()))
            if form.get("grant_type") == "refresh_token":
                self.refreshes.append(form["refresh_token"])
                await anyio.sleep(0.05)  # widen the window for the concurrent readers
        return await self.client.send(request)


@dataclass
class App:
    auth: Auth
    clock: Clock
    transport: CountingTransport
    jar: dict[str, str] = field(default_factory=dict)

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> Request:
        headers = {"cookie": "; ".join(f"{k}={v}" for k, v in self.jar.items())}
        body = b""
        if form is not None:
            headers["content-type"] = "application/x-www-form-urlencoded"
            body = urlencode(form).encode()
        url = path if "://" in path else ORIGIN + path
        return Request(method=method, url=url, headers=headers, body=body)

    def store(self, cookies: Any) -> None:
        for cookie in cookies:
            if cookie.value and (cookie.options.max_age is None or cookie.options.max_age > 0):
                self.jar[cookie.name] = cookie.value
            else:
                self.jar.pop(cookie.name, None)

    async def send(self, request: Request) -> Response:
        response = await self.auth.respond(request)
        assert response is not None
        self.store(response.cookies)
        return response

    async def sign_in(self, op: OpenIDProvider) -> None:
        csrf = (await self.send(self.request("GET", "/auth/csrf"))).json()["csrfToken"]
        start = await self.send(self.request("POST", "/auth/signin/op", {"csrfToken": csrf}))
        assert start.status == 302, start
        async with httpx.AsyncClient() as browser:
            answer = await op.alogin(browser, start.location or "")
        done = await self.send(self.request("GET", answer.url))
        assert done.status == 302, done
        assert done.location == ORIGIN
        assert SESSION in self.jar

    def token_state(self, jar: dict[str, str] | None = None) -> dict[str, Any]:
        value = (jar or self.jar)[SESSION]
        token = jwt.decode(value, [SECRET], SESSION, now=self.clock())
        state: dict[str, Any] = token["oauth"]
        return state


@pytest.fixture
async def make_app(oidc_op: OpenIDProvider) -> AsyncIterator[Any]:
    apps: list[App] = []

    def make(**config: Any) -> App:
        client = HTTPClient(AnyioBackend(), proxy_env={})
        transport = CountingTransport(client, oidc_op.token_endpoint)
        provider = oidc_op.provider_config(
            oidc_op.client(),
            authorization={"params": {"scope": "openid email profile offline_access"}},
            authorization_params={"prompt": "consent"},
        )
        clock = Clock()
        auth = Auth(
            AuthConfig(secret=SECRET, trust_host=True, providers=[provider], **config),
            clock=clock,
            transport=transport,
            env={},
        )
        apps.append(App(auth, clock, transport))
        return apps[-1]

    yield make
    for app in apps:
        await app.transport.client.aclose()


async def userinfo_status(op: OpenIDProvider, access_token: str) -> int:
    """What the OP's userinfo endpoint answers ``access_token`` (200: the OP takes it)."""
    async with httpx.AsyncClient() as http:
        headers = {"authorization": f"Bearer {access_token}"}
        return (await http.get(op.userinfo_endpoint, headers=headers)).status_code


async def concurrently(count: int, function: Any) -> list[Any]:
    results: list[Any] = [None] * count

    async def one(i: int) -> None:
        results[i] = await function()

    async with anyio.create_task_group() as group:
        for i in range(count):
            group.start_soon(one, i)
    return results


async def test_expiry_then_refresh_on_the_next_session_read(make_app: Any, oidc_op: Any) -> None:
    app = make_app()
    await app.sign_in(oidc_op)
    first = app.token_state()
    assert first["refresh_token"]
    assert first["access_token"]
    await app.auth.session(app.request("GET", "/"))
    assert app.transport.refreshes == []  # not due yet
    app.clock.offset = first["expires_at"] - app.clock() + 1  # past the access token's expiry
    read = await app.auth.session(app.request("GET", "/"))
    assert read.data["user"]["email"] == oidc_op.account.email
    assert "error" not in read.data
    app.store(read.cookies)
    second = app.token_state()
    assert app.transport.refreshes == [first["refresh_token"]]
    assert second["access_token"] != first["access_token"]
    assert second["refresh_token"] != first["refresh_token"]  # rotated
    assert second["expires_at"] > first["expires_at"]
    assert (
        await userinfo_status(oidc_op, second["access_token"]) == 200
    )  # the OP takes the new access token
    # the OP's refreshed ID token was validated against the sign-in's (the same `sub`) and kept
    assert first["sub"] == oidc_op.account.sub
    assert unverified_claims(second["id_token"])["sub"] == first["sub"]


@pytest.mark.parametrize("strategy", ["jwt", "database"])
async def test_twenty_concurrent_requests_at_expiry_share_one_refresh(
    make_app: Any, oidc_op: OpenIDProvider, strategy: str, tmp_path: Path
) -> None:
    config: dict[str, Any] = {}
    if strategy == "database":
        config["adapter"] = SQLiteAdapter(tmp_path / "auth.db")
    app = make_app(**config)
    await app.sign_in(oidc_op)
    app.clock.offset = 3600  # every access token the OP issues lives 1 h at most
    request = app.request("GET", "/")
    tokens = await concurrently(20, lambda: app.auth.access_token(request, provider="op"))
    assert len(app.transport.refreshes) == 1  # exactly one token-endpoint call
    values = {t.token for t in tokens}
    assert len(values) == 1
    assert None not in values
    if strategy == "jwt":  # and each response re-issues the cookie with the rotated tokens
        states = [
            app.token_state({SESSION: {c.name: c.value for c in t.cookies}[SESSION]})
            for t in tokens
        ]
        assert {s["refresh_token"] for s in states} == {states[0]["refresh_token"]}
    assert await userinfo_status(oidc_op, values.pop()) == 200
    if strategy == "database":
        await config["adapter"].aclose()


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.mark.parametrize("strategy", ["jwt", "database"])
async def test_two_processes_on_one_redis_share_one_refresh(
    make_app: Any, oidc_op: OpenIDProvider, strategy: str, tmp_path: Path, redis_url: str
) -> None:
    """Two runtimes (as two processes would be: each its own HTTP client and in-process
    single flight) with ``single_flight`` on one Redis: 20 concurrent reads at expiry, split
    between them, make one token-endpoint call (without it, each sends the refresh token and
    the OP, seeing it twice, revokes the grant)."""
    flights = RedisAdapter(redis_url, key_prefix=f"{uuid.uuid4().hex}:")
    config: dict[str, Any] = {"single_flight": flights}
    if strategy == "database":
        config["adapter"] = SQLiteAdapter(tmp_path / "auth.db")
    first, second = make_app(**config), make_app(**config)
    await first.sign_in(oidc_op)
    first.clock.offset = second.clock.offset = 3600
    request = first.request("GET", "/")
    turns = itertools.cycle((first, second))
    tokens = await concurrently(20, lambda: next(turns).auth.access_token(request, provider="op"))
    assert len(first.transport.refreshes) + len(second.transport.refreshes) == 1
    values = {t.token for t in tokens}
    assert len(values) == 1
    assert None not in values
    assert await userinfo_status(oidc_op, values.pop()) == 200
    await flights.aclose()
    if strategy == "database":
        await config["adapter"].aclose()


async def test_a_reused_refresh_token_is_refused_and_the_session_says_so(
    make_app: Any, oidc_op: OpenIDProvider
) -> None:
    """The OP consumes a refresh token on use: replaying an old cookie once the shared answer
    is gone (after 30 s) gets ``invalid_grant``; the session reports it and never loops."""
    app = make_app()
    await app.sign_in(oidc_op)
    old_jar = dict(app.jar)
    app.clock.offset = 3600
    read = await app.auth.session(app.request("GET", "/"))
    assert "error" not in read.data
    app.clock.offset += 31  # the single-flight answer is forgotten
    app.jar = old_jar  # a stale cookie comes back with the consumed refresh token
    read = await app.auth.session(app.request("GET", "/"))
    assert read.data["error"] == "RefreshAccessTokenError"
    app.store(read.cookies)
    assert app.token_state()["refresh_token"] == ""
    read = await app.auth.session(app.request("GET", "/"))
    assert read.data["error"] == "RefreshAccessTokenError"
    assert len(app.transport.refreshes) == 2  # the refused token was not sent again
    token = await app.auth.access_token(app.request("GET", "/"), provider="op")
    assert token.token is None
