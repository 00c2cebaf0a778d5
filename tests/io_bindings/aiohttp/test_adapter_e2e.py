"""The aiohttp adapter on aiohttp's own server, with a real HTTP client: ``GET``/``POST``
(and ``None`` outside the prefix), ``routes()``, custom prefixes, ``get_session`` on no,
valid, tampered and expired cookies, ``protect`` and ``require_session``, re-issued
cookies reaching the response, the body cap and a bad ``Host``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from aiohttp import web
from live_server import submit_sign_in_form

import io_bindings.aiohttp as adapter
from io_bindings.aiohttp import (
    DEFAULT_MAX_BODY_SIZE,
    AiohttpAuth,
    AiohttpAuthConfig,
    get_session,
    require_session,
    send_session_cookies,
)
from io_bindings.runtimes import DEFAULT_SIZE
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials
from tests.io_bindings.aiohttp.running import running

pytestmark = pytest.mark.e2e
SECRET = "aiohttp-adapter-test-secret-0123456789abcdef"
SESSION_COOKIE = "authjs.session-token"
DAY = 86400


class Clock:
    """A clock the tests move forward."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    name = str(credentials.get("username", ""))
    if credentials.get("password") != "pw":
        return None
    return {"id": name, "name": name, "email": f"{name}@example.com"}


def session_callback(session: dict[str, Any], token: dict[str, Any]) -> dict[str, Any]:
    if token.get("name") == "nouser":  # a session without `user`
        return {"expires": session["expires"]}
    return session


def make_config(**options: Any) -> AuthConfig:
    credentials = {"username": {}, "password": {"type": "password"}}
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        providers=[Credentials(authorize=authorize, credentials=credentials)],
        session={"max_age": 30 * DAY, "update_age": 0},  # every read re-issues the cookie
        callbacks={"session": session_callback},
        **options,
    )


def make_app(auth: AiohttpAuth, config: AuthConfig) -> web.Application:
    """Auth routes through ``GET``/``POST`` called from a catch-all handler."""
    app = web.Application(
        middlewares=[
            auth.protect(["/protected", "/account/", "/api/auth/signin"], "/home"),
            auth.protect(["/members/"]),  # to the sign-in page
        ]
    )

    async def catch_all(request: web.Request) -> web.StreamResponse:
        response = await (auth.GET if request.method == "GET" else auth.POST)(request)
        if response is not None:
            return response
        return web.json_response({"outside": request.path})

    async def show(request: web.Request) -> web.Response:
        return web.json_response({"auth": request["auth"]})

    async def elsewhere(request: web.Request) -> web.Response:
        raise web.HTTPFound("/elsewhere")

    async def whoami(request: web.Request) -> web.Response:
        return web.json_response({"session": await get_session(request, config)})

    async def dashboard(request: web.Request) -> web.Response:
        return web.json_response({"session": await require_session(request, config)})

    app.router.add_get("/protected", show)
    app.router.add_get("/account/raise", elsewhere)
    app.router.add_get("/account/{tail:.*}", show)
    app.router.add_get("/members/{tail:.*}", show)
    app.router.add_get("/whoami", whoami)
    app.router.add_get("/dashboard", dashboard)
    app.router.add_route("*", "/{tail:.*}", catch_all)
    app.on_response_prepare.append(send_session_cookies)
    return app


@pytest.fixture(scope="module")
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def site(clock: Clock) -> Iterator[str]:
    config = make_config()
    with running(make_app(AiohttpAuth(config, clock=clock), config)) as url:
        yield url


@pytest.fixture
def http(site: str) -> Iterator[httpx.Client]:
    """A browser with its own cookie jar; redirects are not followed."""
    with httpx.Client(base_url=site, timeout=10) as http:
        yield http


def sign_in(http: httpx.Client, username: str = "ann", prefix: str = "/api/auth") -> None:
    token = http.get(f"{prefix}/csrf").json()["csrfToken"]
    form = {"csrfToken": token, "username": username, "password": "pw"}
    response = http.post(f"{prefix}/callback/credentials", data=form)
    assert response.status_code == 302, response.text
    assert http.cookies.get(SESSION_COOKIE)


def session_of(http: httpx.Client) -> Any:
    response = http.get("/whoami")
    assert response.status_code == 200, response.text
    return response.json()["session"]


def assert_to_sign_in(response: httpx.Response, callback_url: str) -> None:
    """``response`` redirects to the engine's sign-in page with ``callbackUrl``."""
    location = httpx.URL(response.headers["location"])
    assert location.path == "/api/auth/signin"
    assert location.params["callbackUrl"] == callback_url


def set_cookies(response: httpx.Response) -> list[str]:
    return response.headers.get_list("set-cookie")


def test_get_and_post_serve_the_auth_routes(http: httpx.Client) -> None:
    csrf = http.get("/api/auth/csrf")
    assert csrf.status_code == 200
    assert csrf.json()["csrfToken"]
    assert any(c.startswith("authjs.csrf-token=") for c in set_cookies(csrf))
    assert http.post("/api/auth/session").json() is None
    page = http.get("/api/auth/signin")
    assert page.headers["content-type"].startswith("text/html")
    assert 'action="' + str(http.base_url).rstrip("/") + '/api/auth/callback/credentials"' in (
        page.text
    )


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("path", ["/elsewhere", "/api/authx", "/%61pi/auth/csrf", "/auth/csrf"])
def test_outside_the_prefix_get_and_post_return_none(
    http: httpx.Client, method: str, path: str
) -> None:
    response = http.request(method, path)
    assert response.status_code == 200, response.text
    assert "outside" in response.json()


def test_credentials_sign_in_and_get_session(http: httpx.Client) -> None:
    assert session_of(http) is None
    sign_in(http)
    session = session_of(http)
    assert session["user"] == {"name": "ann", "email": "ann@example.com"}


def test_get_session_with_a_tampered_cookie(http: httpx.Client, site: str) -> None:
    sign_in(http)
    value = http.cookies[SESSION_COOKIE]
    for tampered in (value[:-4] + ("AAAA" if value[-4:] != "AAAA" else "BBBB"), "x" + value):
        headers = {"cookie": f"{SESSION_COOKIE}={tampered}"}
        response = httpx.get(f"{site}/whoami", headers=headers)
        assert response.json() == {"session": None}
    assert session_of(http) is not None  # the untouched cookie still works


def test_get_session_with_an_expired_cookie(http: httpx.Client, clock: Clock) -> None:
    sign_in(http)
    start = clock.now
    try:
        clock.now = start + 29 * DAY
        assert session_of(http) is not None
        clock.now = start + 29 * DAY + 31 * DAY  # the cookie re-issued at day 29 has expired
        assert session_of(http) is None
    finally:
        clock.now = start


def test_session_reads_reissue_the_cookie(http: httpx.Client) -> None:
    sign_in(http)
    for path in ("/whoami", "/protected", "/account/raise"):
        response = http.get(path)
        assert any(c.startswith(f"{SESSION_COOKIE}=ey") for c in set_cookies(response)), path
    assert http.get("/account/raise").headers["location"] == "/elsewhere"


@pytest.mark.parametrize(
    "path",
    [
        "/protected",
        "/protected/x",
        "/protectedness",
        "/account/",
        "/account/a/b",
        "/%61pi/auth/signin",
    ],
)
def test_protect_redirects_without_a_session(http: httpx.Client, path: str) -> None:
    for method in ("GET", "POST"):
        response = http.request(method, path)
        assert response.status_code == 302, (method, path)
        assert response.headers["location"] == "/home"


def test_protect_passes_a_session_to_the_handler(http: httpx.Client) -> None:
    sign_in(http)
    for path in ("/protected", "/account/", "/account/settings"):
        response = http.get(path)
        assert response.status_code == 200, path
        assert response.json()["auth"]["user"]["name"] == "ann"


def test_protect_wants_a_user_in_the_session(http: httpx.Client) -> None:
    sign_in(http, "nouser")
    assert session_of(http) is not None
    assert http.get("/protected").headers["location"] == "/home"
    assert_to_sign_in(http.get("/dashboard"), "/dashboard")


def test_paths_outside_the_list_and_auth_routes_are_not_protected(http: httpx.Client) -> None:
    assert http.get("/account").json() == {"outside": "/account"}
    assert http.get("/accounting").json() == {"outside": "/accounting"}
    assert http.get("/api/auth/signin").status_code == 200  # listed, but an auth route


def test_require_session(http: httpx.Client) -> None:
    response = http.get("/dashboard?tab=2")
    assert response.status_code == 302
    assert_to_sign_in(response, "/dashboard?tab=2")
    sign_in(http)
    assert http.get("/dashboard").json()["session"]["user"]["name"] == "ann"


def test_signed_out_browsers_land_on_the_sign_in_page_and_come_back(http: httpx.Client) -> None:
    """Followed as a browser does: ``protect`` and ``require_session`` without a target end on
    the engine's sign-in page (200); signing in with its form goes back where it started."""
    for path in ("/members/x?tab=2", "/dashboard"):
        page = http.get(path, follow_redirects=True)
        assert page.status_code == 200, (path, page.text)
        assert [r.status_code for r in page.history] == [302]
        assert page.url.path == "/api/auth/signin"
        assert page.url.params["callbackUrl"] == path
    back = submit_sign_in_form(
        http, page.text, "/callback/credentials", username="ann", password="pw"
    )
    assert back.url.path == "/dashboard"
    assert back.json()["session"]["user"]["name"] == "ann"


def test_headers_over_the_limits_get_431(http: httpx.Client) -> None:
    """110 header lines: 431 from the adapter (aiohttp's own parser takes at most 128 lines of
    8 KiB, and refuses more itself, with 400, before any handler)."""
    response = http.get("/api/auth/session", headers={f"x-pad-{i}": "1" for i in range(110)})
    assert response.status_code == 431
    assert response.text == "Request Header Fields Too Large"


def test_bodies_over_the_cap_get_413(http: httpx.Client) -> None:
    too_big = b"x" * (DEFAULT_MAX_BODY_SIZE + 1)
    declared = http.post("/api/auth/callback/credentials", content=too_big)
    assert declared.status_code == 413
    chunked = http.post("/api/auth/callback/credentials", content=iter([too_big[:1000], too_big]))
    assert chunked.status_code == 413
    assert SESSION_COOKIE not in http.cookies
    token = http.get("/api/auth/csrf").json()["csrfToken"]
    form = urlencode({"csrfToken": token, "username": "ann", "password": "pw", "pad": ""})
    just_fits = form + "x" * (DEFAULT_MAX_BODY_SIZE - len(form))
    headers = {"content-type": "application/x-www-form-urlencoded"}
    response = http.post("/api/auth/callback/credentials", content=just_fits, headers=headers)
    assert response.status_code == 302
    assert http.cookies.get(SESSION_COOKIE)


def test_a_bad_host_gets_400(http: httpx.Client) -> None:
    response = http.get("/api/auth/session", headers={"host": "evil.example/x"})
    assert response.status_code == 400


def test_get_session_builds_the_engine_once_per_config(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []

    class CountingAuth(adapter.Auth):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(adapter, "Auth", CountingAuth)
    config = make_config()  # no AiohttpAuth: get_session makes the runtime

    async def twice(request: web.Request) -> web.Response:
        first, second = await get_session(request, config), await get_session(request, config)
        assert first == second
        return web.json_response({"session": first})

    app = web.Application()
    app.router.add_get("/", twice)
    with running(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        for _ in range(3):
            assert http.get("/").json() == {"session": None}
    assert len(built) == 1
    assert adapter._runtimes.get(config) is built[0]


@pytest.mark.parametrize(
    ("make", "prefix"),
    [
        (lambda: AiohttpAuth(make_config(), prefix="/custom/"), "/custom"),
        (lambda: AiohttpAuth(AiohttpAuthConfig(**vars_of(make_config()), prefix="/b")), "/b"),
        (lambda: AiohttpAuth(make_config(base_path="/via-base")), "/via-base"),
    ],
)
def test_a_custom_prefix_is_the_engine_base_path(make: Any, prefix: str) -> None:
    auth = make()
    assert auth.prefix == auth.auth.settings.base_path == prefix
    app = web.Application()
    app.add_routes(auth.routes())
    with running(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        providers = http.get(f"{prefix}/providers").json()
        assert providers["credentials"]["signinUrl"] == f"{url}{prefix}/signin/credentials"
        sign_in(http, prefix=prefix)
        assert http.get(f"{prefix}/session").json()["user"]["name"] == "ann"
        assert http.get("/api/auth/csrf").status_code == 404
        assert http.get(f"{prefix}x/csrf").status_code == 404


def test_conflicting_prefixes_are_refused() -> None:
    with pytest.raises(ValueError, match="conflicting"):
        AiohttpAuth(make_config(base_path="/a"), prefix="/b")
    with pytest.raises(ValueError, match="conflicting"):
        AiohttpAuth(AiohttpAuthConfig(prefix="/a", base_path="/b", secret=SECRET))


def vars_of(config: AuthConfig) -> dict[str, Any]:
    return {name: getattr(config, name) for name in AuthConfig.__dataclass_fields__}


def test_an_adapters_runtime_outlives_the_get_session_cache() -> None:
    config = make_config()
    auth = AiohttpAuth(config, prefix="/pinned")
    for _ in range(DEFAULT_SIZE + 1):
        adapter._runtimes.get(make_config())
    assert adapter._runtimes.get(config) is auth.auth
    assert auth.auth.settings.base_path == "/pinned"


def test_the_former_names_are_aliases() -> None:
    assert adapter.AdapterBAuth is adapter.AiohttpAuth
    assert adapter.AdapterBAuthConfig is adapter.AiohttpAuthConfig
