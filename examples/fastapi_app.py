"""The FastAPI example (``io_bindings.starlette``).

Run it from the repository root (``pip install 'sansio-auth[fastapi]'``)::

    AUTH_SECRET=$(openssl rand -base64 33) uvicorn examples.fastapi_app:app

then open http://127.0.0.1:8000/ and sign in with ``demo`` / ``demo``. The shared config
(providers, callbacks, the ``authorized`` rules) is in ``examples/host_auth_common.py``;
``docs/adapters/starlette.md`` walks through both.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, FastAPI, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from examples.host_auth_common import dashboard_body, home_body, make_auth, page
from io_bindings.starlette import Session
from sansio_auth import CredentialsSignin

auth_result = make_auth()
handlers, auth, sign_in, sign_out, unstable_update = auth_result

app = FastAPI(title="sansio-auth FastAPI example")
app.mount("/api/auth", handlers)  # every auth route: sign-in page, callbacks, session...
app.add_middleware(auth_result.middleware)  # `authorized`, session refresh, auth()
auth_result.add_to_openapi(app)  # the auth routes in /openapi.json and /docs

OptionalSession = Annotated[Session | None, Depends(auth_result.session)]
RequiredSession = Annotated[Session, Depends(auth_result.require_session)]


@app.get("/", response_class=HTMLResponse)
async def home(error: str | None = None) -> str:
    """Public: shows the session (read with ``auth()`` from the request context)."""
    return page("sansio-auth + FastAPI", home_body(await auth(), error))


@app.get("/dashboard", response_class=HTMLResponse)
async def dashboard(request: Request) -> str:
    """Protected by the middleware's ``authorized`` callback."""
    session = await auth(request)
    assert session is not None  # `authorized` let only signed-in users through
    return page("Dashboard", dashboard_body(session))


@app.get("/api/me")
async def me(session: RequiredSession) -> Session:
    """A JSON API route: 401 ``{"detail": "Not signed in"}`` when signed out."""
    return session


@app.get("/api/whoami")
async def whoami(session: OptionalSession) -> dict[str, Session | None]:
    """The session or ``null``, through the optional dependency."""
    return {"session": session}


@app.get("/admin/stats")
async def admin_stats(session: OptionalSession) -> dict[str, str]:
    """The middleware answers 401 JSON here when signed out (``authorized``)."""
    return {"user": str((session or {}).get("user", {}).get("email"))}


@app.post("/signin")
async def do_sign_in(request: Request) -> RedirectResponse:
    """The home page's sign-in forms: to the URL ``sign_in`` returns (the provider, the
    "check your e-mail" page, or ``redirectTo`` once signed in)."""
    form = await request.form()
    provider = str(form.get("provider") or "") or None
    try:
        url = await sign_in(provider, {**form, "redirect": False})
    except CredentialsSignin as error:
        return RedirectResponse(f"/?error=CredentialsSignin&code={error.code}", status_code=303)
    return RedirectResponse(url, status_code=303)


@app.post("/signout")
async def do_sign_out() -> None:
    """The sign-out button: ``sign_out`` raises a ``Redirect`` (303) to the home page."""
    await sign_out({"redirectTo": "/"})


@app.post("/name")
async def update_name(name: Annotated[str, Form()], _: RequiredSession) -> RedirectResponse:
    """ "Update my name": ``unstable_update`` runs the ``jwt`` callback (``trigger="update"``)."""
    await unstable_update({"user": {"name": name}})
    return RedirectResponse("/", status_code=303)
