"""Small Starlette and FastAPI apps on ``HostAuth`` for the in-process tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import httpx
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from io_bindings.starlette import HostAuth, HostAuthResult, Redirect
from sansio_auth import AuthConfig, CredentialsSignin
from sansio_auth.providers import Credentials

SECRET = "starlette-adapter-test-secret-0123456789"
ENV = {"AUTH_SECRET": SECRET}
ANN = {"id": "ann", "name": "Ann", "email": "ann@example.com"}
OAUTH = {
    "id": "acme",
    "name": "Acme",
    "type": "oauth",
    "client_id": "client",
    "client_secret": "secret",
    "authorization": "https://op.example/authorize",
    "token": "https://op.example/token",
    "userinfo": "https://op.example/userinfo",
}


def authorize(credentials: Mapping[str, Any]) -> dict[str, Any] | None:
    if credentials.get("password") == "right":
        return ANN
    if credentials.get("password") == "locked":
        raise CredentialsSignin(code="locked")
    return None


def jwt(token: dict[str, Any], trigger: str | None, session: Any) -> dict[str, Any]:
    if trigger == "update" and isinstance(session, dict):
        token["name"] = session["user"]["name"]
    return token


def make_config(**options: Any) -> AuthConfig:
    callbacks = {"jwt": jwt, **options.pop("callbacks", {})}
    providers = [Credentials(authorize=authorize), OAUTH]
    return AuthConfig(providers=providers, callbacks=callbacks, **options)


async def _json(value: Any) -> Response:
    return JSONResponse(value)


def starlette_app(result: HostAuthResult, *, middleware: bool = True) -> Starlette:
    """Routes exercising every helper; the middleware is optional."""
    handlers, auth, sign_in, sign_out, unstable_update = result

    async def context(request: Request) -> Response:
        return JSONResponse({"session": await auth()})

    async def explicit(request: Request) -> Response:
        return JSONResponse({"session": await auth(request), "again": await auth(request)})

    @auth
    async def decorated(request: Request) -> Response:
        return JSONResponse({"session": request.auth, "context": await auth()})

    async def do_sign_in(request: Request) -> Response:
        form = await request.form()
        options: dict[str, Any] = dict(form)
        provider = options.pop("provider", None) or None
        params = dict(request.query_params)
        if options.pop("no_redirect", None):
            options["redirect"] = False
            return JSONResponse({"url": await sign_in(provider, options, params)})
        try:
            await sign_in(provider, options, params or None)
        except CredentialsSignin as error:
            return JSONResponse({"error": error.type, "code": error.code}, status_code=401)
        return JSONResponse({"unreachable": True})

    @auth
    async def decorated_sign_in(request: Request) -> Response:
        await sign_in("credentials", await request.form())
        return JSONResponse({"unreachable": True})

    async def do_sign_out(request: Request) -> Response:
        form = dict(await request.form())
        if form.pop("no_redirect", None):
            return JSONResponse({"url": await sign_out({**form, "redirect": False})})
        await sign_out(form)
        return JSONResponse({"unreachable": True})

    async def update(request: Request) -> Response:
        form = await request.form()
        new = await unstable_update({"user": {"name": form["name"]}})
        return JSONResponse({"returned": new, "now": await auth()})

    async def redirect_raised(request: Request) -> Response:
        raise Redirect("/elsewhere")

    routes = [
        Route("/context", context),
        Route("/explicit", explicit),
        Route("/decorated", decorated),
        Route("/dashboard", explicit),
        Route("/signin", do_sign_in, methods=["POST"]),
        Route("/decorated-signin", decorated_sign_in, methods=["POST"]),
        Route("/signout", do_sign_out, methods=["POST"]),
        Route("/update", update, methods=["POST"]),
        Route("/redirect", redirect_raised),
        Mount("/api/auth", app=handlers),
    ]
    extra = [Middleware(result.middleware)] if middleware else []
    return Starlette(routes=routes, middleware=extra)


def fastapi_app(result: HostAuthResult) -> FastAPI:
    """The two dependencies, without the middleware."""
    app = FastAPI()
    app.mount("/api/auth", result.handlers)

    @app.get("/optional")
    async def optional(session: Any = Depends(result.session)) -> Any:  # noqa: B008 - a local
        return {"session": session}

    @app.get("/required")
    async def required(session: Any = Depends(result.require_session)) -> Any:  # noqa: B008
        return {"session": session}

    return app


def client(app: Any, **options: Any) -> httpx.AsyncClient:
    """An in-process client (redirects not followed) on ``http://testserver``."""
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url="http://testserver", **options)


def host(config: AuthConfig | Callable[..., Any], **env: str) -> HostAuthResult:
    """``HostAuth`` with only ``env`` (plus the test secret) as the environment."""
    return HostAuth(config, env={**ENV, **env})


async def sign_in_ann(http: httpx.AsyncClient, password: str = "right") -> httpx.Response:
    """Sign in through the engine's own route, as the sign-in page does."""
    token = (await http.get("/api/auth/csrf")).json()["csrfToken"]
    form = {"csrfToken": token, "username": "ann", "password": password}
    return await http.post("/api/auth/callback/credentials", data=form)
