"""``HostAuth`` in process (httpx's ASGI transport, asyncio and trio): handlers, the
universal ``auth``, the dependencies, ``sign_in``/``sign_out``/``unstable_update``."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.routing import Route

from tests.io_bindings.starlette.apps import (
    client,
    fastapi_app,
    host,
    make_config,
    sign_in_ann,
    starlette_app,
)

pytestmark = pytest.mark.anyio
SESSION = "authjs.session-token"
ORIGIN = {"origin": "http://testserver"}


async def test_handlers_serve_the_auth_routes_under_api_auth() -> None:
    result = host(make_config())
    handlers, *_ = result
    async with client(starlette_app(result)) as http:
        providers = (await http.get("/api/auth/providers")).json()
        assert set(providers) == {"credentials", "acme"}
        assert providers["acme"]["signinUrl"] == "http://testserver/api/auth/signin/acme"
        assert (await http.get("/api/auth/session")).json() is None
        assert (await http.get("/api/auth/nope")).status_code == 400  # the engine: UnknownAction
        assert (await http.post("/api/auth/signout", content=b"x" * 70_000)).status_code == 413
        many = {f"x-pad-{i}": "1" for i in range(150)}
        assert (await http.get("/api/auth/session", headers=many)).status_code == 431
        big = {"x-big": "x" * (70 * 1024)}
        assert (await http.get("/api/auth/session", headers=big)).status_code == 431
        bad_host = await http.get("/api/auth/session", headers={"host": "evil.example:port"})
        assert bad_host.status_code == 400
    routed = [Route("/api/auth/{rest:path}", handlers.GET, methods=["GET"])]
    async with client(type(starlette_app(result))(routes=routed)) as http:
        assert (await http.get("/api/auth/csrf")).json()["csrfToken"]


async def test_auth_request_context_and_decorator_agree() -> None:
    async with client(starlette_app(host(make_config()))) as http:
        for path in ("/context", "/explicit", "/decorated"):
            assert (await http.get(path)).json()["session"] is None
        await sign_in_ann(http)
        assert (await http.get("/context")).json()["session"]["user"]["email"] == "ann@example.com"
        body = (await http.get("/explicit")).json()
        assert body["session"] == body["again"]
        assert body["session"]["user"]["name"] == "Ann"
        body = (await http.get("/decorated")).json()
        assert body["session"] == body["context"]
        assert body["session"]["user"]["name"] == "Ann"


async def test_auth_without_a_request_is_a_clear_error() -> None:
    _, auth, sign_in, sign_out, unstable_update = host(make_config())
    for call in (auth(), sign_in("credentials"), sign_out(), unstable_update({})):
        with pytest.raises(RuntimeError, match="no current request"):
            await call


async def test_the_fastapi_dependencies() -> None:
    async with client(fastapi_app(host(make_config()))) as http:
        assert (await http.get("/optional")).json() == {"session": None}
        refused = await http.get("/required")
        assert refused.status_code == 401
        assert refused.json() == {"detail": "Not signed in"}
        await sign_in_ann(http)
        assert (await http.get("/optional")).json()["session"]["user"]["name"] == "Ann"
        assert (await http.get("/required")).json()["session"]["user"]["name"] == "Ann"


async def test_sign_in_with_credentials_redirects_with_the_session_cookie() -> None:
    async with client(starlette_app(host(make_config()))) as http:
        form = {"provider": "credentials", "password": "right", "redirectTo": "/dashboard"}
        answer = await http.post("/signin", data=form, headers=ORIGIN)
        assert answer.status_code == 303
        assert answer.headers["location"] == "http://testserver/dashboard"
        assert http.cookies.get(SESSION)
        assert (await http.get("/context")).json()["session"]["user"]["name"] == "Ann"


async def test_sign_in_from_a_decorated_endpoint_without_middleware() -> None:
    async with client(starlette_app(host(make_config()), middleware=False)) as http:
        answer = await http.post("/decorated-signin", data={"password": "right"})
        assert answer.status_code == 303
        assert answer.headers["location"] == "http://testserver/"  # no Referer: "/"
        assert (await http.get("/decorated")).json()["session"]["user"]["name"] == "Ann"


async def test_sign_in_defaults_to_the_same_site_referer() -> None:
    async with client(starlette_app(host(make_config()))) as http:
        form = {"provider": "credentials", "password": "right"}
        answer = await http.post(
            "/signin", data=form, headers={"referer": "http://testserver/page?x=1"}
        )
        assert answer.headers["location"] == "http://testserver/page?x=1"
        await http.post("/signout", data={"redirectTo": "/"})
        answer = await http.post("/signin", data=form, headers={"referer": "http://evil.test/"})
        assert answer.headers["location"] == "http://testserver/"


@pytest.mark.parametrize(("password", "code"), [("wrong", "credentials"), ("locked", "locked")])
async def test_wrong_credentials_raise_credentials_signin(password: str, code: str) -> None:
    async with client(starlette_app(host(make_config()))) as http:
        form = {"provider": "credentials", "password": password}
        answer = await http.post("/signin", data=form)
        assert answer.status_code == 401
        assert answer.json() == {"error": "CredentialsSignin", "code": code}
        assert SESSION not in http.cookies


async def test_sign_in_without_redirect_returns_the_url() -> None:
    async with client(starlette_app(host(make_config()))) as http:
        form = {"provider": "acme", "no_redirect": "1", "redirectTo": "/after"}
        answer = await http.post("/signin?prompt=login", data=form)
        url = answer.json()["url"]
        assert url.startswith("https://op.example/authorize?")
        query = parse_qs(urlsplit(url).query)
        assert query["prompt"] == ["login"]  # authorization_params
        assert query["redirect_uri"] == ["http://testserver/api/auth/callback/acme"]
        assert any(c.startswith("authjs.pkce.code_verifier=") for c in
                   answer.headers.get_list("set-cookie"))  # fmt: skip
        for provider in ("", "unknown"):
            form = {"provider": provider, "no_redirect": "1", "redirectTo": "/after"}
            answer = await http.post("/signin", data=form)
            assert answer.json()["url"] == (
                "http://testserver/api/auth/signin?callbackUrl=%2Fafter"
            )


async def test_a_cross_site_post_is_refused() -> None:
    async with client(starlette_app(host(make_config()))) as http:
        form = {"provider": "credentials", "password": "right"}
        answer = await http.post("/signin", data=form, headers={"origin": "http://evil.test"})
        assert answer.status_code == 403
        assert SESSION not in http.cookies


async def test_sign_out_clears_the_session() -> None:
    async with client(starlette_app(host(make_config()))) as http:
        await sign_in_ann(http)
        answer = await http.post("/signout", data={"redirect_to": "/bye"}, headers=ORIGIN)
        assert answer.status_code == 303
        assert answer.headers["location"] == "http://testserver/bye"
        assert SESSION not in http.cookies
        assert (await http.get("/api/auth/session")).json() is None
        await sign_in_ann(http)
        answer = await http.post("/signout", data={"no_redirect": "1"})
        assert answer.json() == {"url": "http://testserver/"}
        assert SESSION not in http.cookies


async def test_unstable_update_changes_the_session() -> None:
    async with client(starlette_app(host(make_config()))) as http:
        await sign_in_ann(http)
        body = (await http.post("/update", data={"name": "Annie"})).json()
        assert body["returned"]["user"]["name"] == "Annie"
        assert body["now"] == body["returned"]  # auth() in the same request sees it
        session = (await http.get("/api/auth/session")).json()
        assert session["user"] == {"name": "Annie", "email": "ann@example.com"}


async def test_a_raised_redirect_is_a_303() -> None:
    async with client(starlette_app(host(make_config()))) as http:
        answer = await http.get("/redirect")
        assert answer.status_code == 303
        assert answer.headers["location"] == "/elsewhere"
