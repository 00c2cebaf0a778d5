"""The middleware (``authorized``'s outcomes, lazy session read, cookie refresh) and the
config: lazy per request, one engine per config object, the Starlette defaults."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse

from sansio_auth import AuthConfig, MissingSecretError
from tests.io_bindings.starlette.apps import client, host, make_config, sign_in_ann, starlette_app

pytestmark = pytest.mark.anyio
SESSION = "authjs.session-token"


def rules(auth: dict[str, Any] | None, request: Request) -> object:
    """One rule per outcome, by path."""
    path = request.url.path
    if path == "/dashboard":
        return auth is not None
    if path == "/context":
        return None if auth is None else True
    if path == "/explicit":
        return "/api/auth/signin?from=explicit"
    if path == "/decorated":
        return JSONResponse({"custom": True}, status_code=418)
    return True


async def test_the_four_outcomes_of_authorized() -> None:
    app = starlette_app(host(make_config(callbacks={"authorized": rules})))
    async with client(app) as http:
        refused = await http.get("/dashboard?tab=2")
        assert refused.status_code == 302
        assert refused.headers["location"] == (
            "http://testserver/api/auth/signin?callbackUrl="
            "http%3A%2F%2Ftestserver%2Fdashboard%3Ftab%3D2"
        )
        assert (await http.get("/context")).status_code == 302  # None: like False
        url = await http.get("/explicit")
        assert (url.status_code, url.headers["location"]) == (
            302,
            "http://testserver/api/auth/signin?from=explicit",
        )
        custom = await http.get("/decorated")
        assert (custom.status_code, custom.json()) == (418, {"custom": True})
        assert (await http.get("/redirect")).status_code == 303  # True: the app answers
        await sign_in_ann(http)
        assert (await http.get("/dashboard")).json()["session"]["user"]["name"] == "Ann"
        assert (await http.get("/context")).status_code == 200


async def test_an_async_callback_and_the_sign_in_page_is_never_redirected() -> None:
    async def never(request: Request) -> bool:
        return False

    config = make_config(callbacks={"authorized": never}, pages={"sign_in": "/login"})
    async with client(starlette_app(host(config))) as http:
        answer = await http.get("/context")
        assert answer.headers["location"] == (
            "http://testserver/login?callbackUrl=http%3A%2F%2Ftestserver%2Fcontext"
        )
        assert (await http.get("/login")).status_code == 404  # passed on to the app
        assert (await http.get("/api/auth/providers")).status_code == 200  # auth routes pass


async def test_the_session_is_read_once_and_only_when_needed() -> None:
    reads: list[str] = []

    def session(session: dict[str, Any]) -> dict[str, Any]:
        reads.append("read")
        return session

    async with client(starlette_app(host(make_config(callbacks={"session": session})))) as http:
        await sign_in_ann(http)
        reads.clear()
        await http.get("/redirect")
        assert reads == []  # no `authorized` callback, the endpoint does not ask
        await http.get("/explicit")  # asks twice
        assert reads == ["read"]


async def test_the_middleware_adds_the_reissued_session_cookie() -> None:
    config = make_config(session={"update_age": 0})
    async with client(starlette_app(host(config))) as http:
        await sign_in_ann(http)
        answer = await http.get("/context")
        cookies = answer.headers.get_list("set-cookie")
        assert [c for c in cookies if c.startswith(f"{SESSION}=")], cookies
    async with client(starlette_app(host(make_config()))) as http:  # a day: not re-issued
        await sign_in_ann(http)
        assert "set-cookie" not in (await http.get("/context")).headers


async def test_lazy_config_per_request_one_engine_per_config() -> None:
    configs = {False: make_config(), True: make_config(base_path="/api/auth", debug=False)}
    seen: list[str] = []

    async def config_for(request: HTTPConnection) -> AuthConfig:
        seen.append(request.url.path)
        return configs[request.headers.get("x-tenant") == "b"]

    result = host(config_for)
    async with client(starlette_app(result)) as http:
        await sign_in_ann(http)
        assert (await http.get("/context")).json()["session"]["user"]["name"] == "Ann"
        assert (await http.get("/context", headers={"x-tenant": "b"})).status_code == 200
        for _ in range(3):
            await http.get("/api/auth/session")
    assert seen.count("/context") == 2  # called for each request
    assert seen.count("/api/auth/session") == 3  # once, though middleware and handlers serve it
    runtimes = result.handlers.runtimes
    assert len(runtimes._by_config) == 2  # but one engine per config object


async def test_a_sync_config_function_and_a_wrong_return() -> None:
    async with client(starlette_app(host(lambda request: make_config()))) as http:
        assert (await http.get("/api/auth/providers")).status_code == 200
    bad = host(lambda request: {"providers": []})
    async with client(starlette_app(bad)) as http:
        with pytest.raises(TypeError, match="not an AuthConfig"):  # the middleware
            await http.get("/context")
    async with client(starlette_app(bad, middleware=False)) as http:
        assert (await http.get("/api/auth/session")).status_code == 500  # handlers: logged 500


@pytest.mark.parametrize(
    "env", [{"ENV": "production"}, {"PYTHON_ENV": "production"}, {"AUTH_URL": "https://a.test"}]
)
async def test_production_without_a_secret_fails_the_first_request(env: dict[str, str]) -> None:
    from io_bindings.starlette import HostAuth

    result = HostAuth(make_config(), env={**env, "AUTH_TRUST_HOST": "true"})  # builds nothing yet
    async with client(starlette_app(result)) as http:
        with pytest.raises(MissingSecretError, match="AUTH_SECRET"):
            await http.get("/context")


async def test_development_gets_a_random_secret_and_a_trusted_host(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from io_bindings.starlette import HostAuth

    result = HostAuth(make_config(), env={})
    with caplog.at_level(logging.WARNING, logger="sansio_auth"):
        async with client(starlette_app(result)) as http:
            await sign_in_ann(http)
            assert (await http.get("/context")).json()["session"]["user"]["name"] == "Ann"
    assert "AUTH_SECRET is not set" in caplog.text


async def test_base_path_from_auth_url_or_config() -> None:
    from_url = host(make_config(), AUTH_URL="http://testserver/custom/auth")
    async with client(starlette_app(from_url)) as http:
        assert (await http.get("/api/auth/session")).status_code == 404  # not its path
    assert from_url.handlers.runtimes.for_config(make_config()).settings.base_path == (
        "/custom/auth"
    )
    config = make_config(base_path="/auth")
    assert host(config).handlers.runtimes.for_config(config).settings.base_path == "/auth"


async def lifespan(app: Any) -> list[str]:
    """Run ``app``'s lifespan (startup, then shutdown); the messages it sent."""
    incoming = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    sent: list[str] = []

    async def receive() -> dict[str, str]:
        return next(incoming)

    async def send(message: dict[str, str]) -> None:
        sent.append(message["type"])

    await app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    return sent


@pytest.mark.parametrize("whole", [True, False])
async def test_lifespan_shutdown_closes_the_runtimes(whole: bool) -> None:
    result = host(make_config())
    async with client(starlette_app(result)) as http:
        await http.get("/api/auth/session")
    assert len(result.handlers.runtimes._by_config) == 1
    app = result.handlers if whole else starlette_app(result)  # the middleware's shutdown
    sent = await lifespan(app)
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert len(result.handlers.runtimes._by_config) == 0
