"""One small app per framework, with the same routes written the way a user of that
framework writes them, for ``tests/io_bindings/test_adapter_parity_e2e.py``:

* ``/auth/...``: the engine's routes (base path ``/auth`` everywhere);
* ``GET /whoami``: ``{"session": <the session or null>}``;
* ``POST /signin``: a sign-in form (``provider``, ``csrfToken``, ``redirectTo``, fields);
* ``POST /signout``: a sign-out form; ``POST /update`` (``name``): ``{"session": <new>}``.

Served by ``uvicorn --factory parity_apps:starlette_app`` (and ``:fastapi_app``,
``:django_app``) and ``python -m aiohttp.web parity_apps:aiohttp_app``, with ``AUTH_SECRET``
in the environment. Django's own CSRF middleware is left out: the library's checks are what
is compared. ``PARITY_DATABASE`` (an ``E2E_DATABASE`` of :mod:`db_app`) keeps the rate-limit
counters in that store, and ``PARITY_ACCOUNT_LIMIT`` allows that many password attempts per
account a minute (default: the library's limits, counters in process memory).
"""

from __future__ import annotations

import os
from typing import Any

from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials

BASE_PATH = "/auth"


def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    if credentials.get("password") != "pw":
        return None
    return {"id": "ann", "name": "Ann", "email": "ann@example.com"}


def jwt(token: dict[str, Any], trigger: str | None = None, session: Any = None) -> dict[str, Any]:
    if trigger == "update" and isinstance(session, dict):
        token["name"] = session.get("name", token.get("name"))
    return token


def config() -> AuthConfig:
    options: dict[str, Any] = {}
    if database := os.environ.get("PARITY_DATABASE"):
        from db_app import adapter_for

        options.update(adapter=adapter_for(database), session={"strategy": "jwt"})
    if limit := os.environ.get("PARITY_ACCOUNT_LIMIT"):
        options["rate_limits"] = {"credentials_per_account": (int(limit), 60)}
    return AuthConfig(
        trust_host=True,
        base_path=BASE_PATH,
        providers=[Credentials(authorize=authorize)],
        callbacks={"jwt": jwt},
        **options,
    )


def starlette_app() -> Any:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Mount, Route

    from io_bindings.starlette import HostAuth

    result = HostAuth(config())
    handlers, auth, sign_in, sign_out, unstable_update = result

    async def whoami(request: Request) -> Response:
        return JSONResponse({"session": await auth()})

    async def signin(request: Request) -> Response:
        form = await request.form()
        await sign_in(str(form.get("provider") or "") or None, form)
        return JSONResponse({"unreachable": True})

    async def signout(request: Request) -> Response:
        await sign_out(await request.form())
        return JSONResponse({"unreachable": True})

    async def update(request: Request) -> Response:
        form = await request.form()
        return JSONResponse({"session": await unstable_update({"name": form["name"]})})

    routes = [
        Route("/whoami", whoami),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/update", update, methods=["POST"]),
        Mount(BASE_PATH, app=handlers),
    ]
    return Starlette(routes=routes, middleware=[Middleware(result.middleware)])


def fastapi_app() -> Any:
    from fastapi import FastAPI, Request

    from io_bindings.starlette import HostAuth

    result = HostAuth(config())
    app = FastAPI()
    app.add_middleware(result.middleware)
    app.mount(BASE_PATH, result.handlers)

    async def signin(request: Request) -> Any:
        form = await request.form()
        await result.sign_in(str(form.get("provider") or "") or None, form)
        return {"unreachable": True}

    async def whoami() -> Any:
        return {"session": await result.auth()}

    signin.__annotations__["request"] = Request  # resolved here, not in the module's names
    app.post("/signin")(signin)
    app.get("/whoami")(whoami)
    return app


def aiohttp_app(argv: list[str] | None = None) -> Any:
    from aiohttp import web

    from io_bindings.aiohttp import AiohttpAuth, get_session

    fixed = config()
    auth = AiohttpAuth(fixed)

    async def whoami(request: web.Request) -> web.Response:
        return web.json_response({"session": await get_session(request, fixed)})

    async def signin(request: web.Request) -> web.Response:
        form = await request.post()
        options = {k: v for k, v in form.items() if isinstance(v, str)}
        await auth.sign_in(request, options.get("provider") or None, options)
        return web.json_response({"unreachable": True})

    async def signout(request: web.Request) -> web.Response:
        form = await request.post()
        await auth.sign_out(request, {k: v for k, v in form.items() if isinstance(v, str)})
        return web.json_response({"unreachable": True})

    async def update(request: web.Request) -> web.Response:
        form = await request.post()
        new = await auth.unstable_update(request, {"name": form["name"]})
        return web.json_response({"session": new})

    app = web.Application(middlewares=[auth.middleware()])
    app.add_routes(auth.routes())
    app.add_routes(
        [
            web.get("/whoami", whoami),
            web.post("/signin", signin),
            web.post("/signout", signout),
            web.post("/update", update),
        ]
    )
    app.on_cleanup.append(auth.aclose)
    return app


def django_app() -> Any:
    import django
    from django.conf import settings

    settings.configure(
        DEBUG=False,
        SECRET_KEY="parity-test-only",
        ALLOWED_HOSTS=["127.0.0.1", "localhost"],
        ROOT_URLCONF="parity_django_urls",
        MIDDLEWARE=["parity_django_urls.handle"],
        INSTALLED_APPS=[],
        DATABASES={},
    )
    django.setup()
    from django.core.asgi import get_asgi_application

    return get_asgi_application()
