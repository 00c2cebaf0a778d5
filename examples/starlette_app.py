"""The Starlette example (``io_bindings.starlette``), runs on asyncio or trio.

Run it from the repository root (``pip install 'sansio-auth[starlette]'``)::

    AUTH_SECRET=$(openssl rand -base64 33) hypercorn -k trio examples.starlette_app:app

(or ``uvicorn examples.starlette_app:app``), then open http://127.0.0.1:8000/ and sign in
with ``demo`` / ``demo``. The shared config is in ``examples/host_auth_common.py``.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route

from examples.host_auth_common import dashboard_body, home_body, make_auth, page
from sansio_auth import CredentialsSignin

auth_result = make_auth()
handlers, auth, sign_in, sign_out, unstable_update = auth_result


@auth
async def home(request: Request) -> Response:
    """Public: ``@auth`` sets ``request.auth`` (the session or ``None``)."""
    error = request.query_params.get("error")
    return HTMLResponse(page("sansio-auth + Starlette", home_body(request.auth, error)))


@auth
async def dashboard(request: Request) -> Response:
    """Protected by the middleware's ``authorized`` callback."""
    return HTMLResponse(page("Dashboard", dashboard_body(request.auth)))


async def me(request: Request) -> Response:
    """A JSON API route: 401 when signed out."""
    session = await auth(request)
    if session is None:
        return JSONResponse({"detail": "Not signed in"}, status_code=401)
    return JSONResponse(session)


async def whoami(request: Request) -> Response:
    """The session or ``null``, with ``auth()`` (the request from the context)."""
    return JSONResponse({"session": await auth()})


async def admin_stats(request: Request) -> Response:
    """The middleware answers 401 JSON here when signed out (``authorized``)."""
    session = await auth()
    return JSONResponse({"user": str((session or {}).get("user", {}).get("email"))})


async def do_sign_in(request: Request) -> Response:
    """The home page's sign-in forms: ``sign_in`` raises a ``Redirect`` (303) where the
    engine says; a wrong password comes back to the home page with the error."""
    form = await request.form()
    try:
        await sign_in(str(form.get("provider") or "") or None, form)
    except CredentialsSignin as error:
        return RedirectResponse(f"/?error=CredentialsSignin&code={error.code}", status_code=303)
    return RedirectResponse("/", status_code=303)  # not reached: sign_in redirects


async def do_sign_out(request: Request) -> Response:
    """The sign-out button: back to the home page."""
    return RedirectResponse(await sign_out({"redirectTo": "/", "redirect": False}), 303)


async def update_name(request: Request) -> Response:
    """ "Update my name": ``unstable_update`` runs the ``jwt`` callback (``trigger="update"``)."""
    if await auth() is None:
        return JSONResponse({"detail": "Not signed in"}, status_code=401)
    form = await request.form()
    await unstable_update({"user": {"name": str(form.get("name", ""))}})
    return RedirectResponse("/", status_code=303)


app = Starlette(
    routes=[
        Route("/", home),
        Route("/dashboard", dashboard),
        Route("/api/me", me),
        Route("/api/whoami", whoami),
        Route("/admin/stats", admin_stats),
        Route("/signin", do_sign_in, methods=["POST"]),
        Route("/signout", do_sign_out, methods=["POST"]),
        Route("/name", update_name, methods=["POST"]),
        Mount("/api/auth", app=handlers),
    ],
    middleware=[Middleware(auth_result.middleware)],
)
