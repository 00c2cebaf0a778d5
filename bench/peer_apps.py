"""The FastAPI apps of the Python peers section, each a uvicorn factory
(``--factory bench.peer_apps:create_<name>``) serving ``GET /me``: a protected endpoint that
answers ``{"email": ...}`` of the signed-in user, or 401 (as a FastAPI user writes it: a
dependency that gives the session or raises). Each signs in as it is meant to:

* ``ours``: :func:`io_bindings.starlette.HostAuth` mounted at ``/api/auth``, a credentials
  provider (``POST /api/auth/callback/credentials``), JWT sessions; with ``BENCH_SQLITE``
  (a file), database sessions in SQLite through our adapter (seeded, as a sign-in stores
  them: credentials cannot start a database session); with ``BENCH_MIDDLEWARE=1``, behind
  ``HostAuth``'s middleware too (as the docs set an app up);
* ``recipe``: Starlette's ``SessionMiddleware`` with Authlib's OpenID Connect client against
  the local OP (``BENCH_OP_ISSUER``, ``BENCH_OP_CLIENT_ID``, ``BENCH_OP_CLIENT_SECRET``):
  ``GET /login``, the OP's pages, ``GET /auth/callback/op`` keeps the userinfo in the
  session;
* ``pyjwt``: a hand-written HS256 cookie: ``POST /login`` checks the password, the
  dependency decodes the cookie with PyJWT;
* ``fastapi_users``: fastapi-users with its SQLAlchemy user table in SQLite
  (``BENCH_SQLITE``), a cookie transport and the JWT strategy, or the database strategy
  (access-token table) with ``BENCH_STRATEGY=database``: ``POST /auth/login``;
* ``bare`` and ``decrypt``: the references, an endpoint with no auth at all and one whose
  dependency only decrypts our session cookie (no library around it).

The peers' packages are the ``bench`` extra; they are imported only by their factory.
"""

# no `from __future__ import annotations`: FastAPI reads the dependencies' annotations,
# which name local functions

import importlib.util
import os
import time
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Form, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse

from sansio_auth import AuthConfig, jwt
from sansio_auth.providers import Credentials

from .app import SECRET, SESSION_COOKIE, USER, database_config

PEER_MODULES = ("fastapi_users", "fastapi_users_db_sqlalchemy", "aiosqlite", "authlib",
                "itsdangerous", "jwt", "allauth")  # fmt: skip
"""What the ``bench`` extra installs for the peers."""
PASSWORD = "bench-password"
"""The bench user's password (:data:`bench.app.USER`'s e-mail is the user name)."""
PROTECTED = "/me"


def missing_peers(modules: tuple[str, ...] = PEER_MODULES) -> str | None:
    """Why the peers (those that need ``modules``) cannot be measured (``pip install -e
    '.[bench]'``), or ``None``."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return f"not installed: {', '.join(missing)} (the bench extra: pip install -e '.[bench]')"


def _email(session: dict[str, Any]) -> dict[str, str]:
    return {"email": session["user"]["email"]}


def authorize_bench_user(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """The credentials provider's ``authorize``: the bench user with :data:`PASSWORD`."""
    if credentials.get("username") == USER["email"] and credentials.get("password") == PASSWORD:
        return {"id": "1", "name": USER["name"], "email": USER["email"], "image": USER["picture"]}
    return None


def create_ours() -> FastAPI:
    """FastAPI + ``HostAuth``: ``Depends(auth_result.require_session)`` (and, with
    ``BENCH_MIDDLEWARE=1``, the middleware)."""
    from io_bindings.starlette import HostAuth

    if path := os.environ.get("BENCH_SQLITE"):
        from io_bindings.db.sqlite import SQLiteAdapter

        config = database_config(SQLiteAdapter(path))
    else:
        credentials: dict[str, dict[str, str]] = {"username": {}, "password": {}}
        config = AuthConfig(
            secret=SECRET,
            trust_host=True,
            providers=[Credentials(authorize=authorize_bench_user, credentials=credentials)],
        )
    auth_result = HostAuth(config, env={})
    app = FastAPI()
    app.mount("/api/auth", auth_result.handlers)
    if os.environ.get("BENCH_MIDDLEWARE") == "1":
        app.add_middleware(auth_result.middleware)

    @app.get(PROTECTED)
    async def me(session: Annotated[dict[str, Any], Depends(auth_result.require_session)]) -> Any:
        return _email(session)

    return app


def create_bare() -> FastAPI:
    """The floor: the same endpoint answering a constant, no auth."""
    app = FastAPI()

    @app.get(PROTECTED)
    async def me() -> Any:
        return {"email": USER["email"]}

    return app


def create_decrypt() -> FastAPI:
    """A JWE session decrypted on every request: a dependency that decrypts our cookie with
    :func:`sansio_auth.jwt.decode` and nothing else (no library, no checks beyond the
    token's own)."""
    app = FastAPI()

    async def token(request: Request) -> dict[str, Any]:
        value = request.cookies.get(SESSION_COOKIE)
        try:
            return jwt.decode(value or "", SECRET, SESSION_COOKIE, now=time.time())
        except jwt.InvalidToken:
            raise HTTPException(401, detail="Not signed in") from None

    @app.get(PROTECTED)
    async def me(claims: Annotated[dict[str, Any], Depends(token)]) -> Any:
        return {"email": claims["email"]}

    return app


def create_recipe() -> FastAPI:
    """Starlette's ``SessionMiddleware`` + Authlib's OpenID Connect client (the recipe of
    Authlib's FastAPI documentation), the session's user checked by a dependency."""
    from authlib.integrations.starlette_client import OAuth
    from starlette.middleware.sessions import SessionMiddleware

    oauth = OAuth()
    issuer = os.environ["BENCH_OP_ISSUER"]
    oauth.register(
        "op",
        client_id=os.environ["BENCH_OP_CLIENT_ID"],
        client_secret=os.environ["BENCH_OP_CLIENT_SECRET"],
        server_metadata_url=f"{issuer}/.well-known/openid-configuration",
        client_kwargs={"scope": "openid email profile"},
    )
    app = FastAPI()
    app.add_middleware(SessionMiddleware, secret_key=SECRET)

    @app.get("/login")
    async def login(request: Request) -> Any:
        return await oauth.op.authorize_redirect(request, str(request.url_for("callback")))

    @app.get("/auth/callback/op")
    async def callback(request: Request) -> Any:
        token = await oauth.op.authorize_access_token(request)
        request.session["user"] = dict(token["userinfo"])
        return RedirectResponse("/")

    async def current_user(request: Request) -> dict[str, Any]:
        user = request.session.get("user")
        if not user:
            raise HTTPException(401, detail="Not signed in")
        return dict(user)

    @app.get(PROTECTED)
    async def me(user: Annotated[dict[str, Any], Depends(current_user)]) -> Any:
        return {"email": user["email"]}

    return app


def create_pyjwt() -> FastAPI:
    """A hand-written HS256 cookie with PyJWT."""
    import jwt as pyjwt

    app = FastAPI()

    @app.post("/login")
    async def login(username: str = Form(), password: str = Form()) -> Any:
        if authorize_bench_user({"username": username, "password": password}) is None:
            raise HTTPException(401, detail="Wrong user name or password")
        claims = {"sub": "1", "email": username, "exp": int(time.time()) + 30 * 86400}
        answer = JSONResponse({"ok": True})
        answer.set_cookie("token", pyjwt.encode(claims, SECRET, "HS256"), httponly=True)
        return answer

    async def current_user(request: Request) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = pyjwt.decode(
                request.cookies.get("token") or "", SECRET, algorithms=["HS256"]
            )
        except pyjwt.InvalidTokenError:
            raise HTTPException(401, detail="Not signed in") from None
        return claims

    @app.get(PROTECTED)
    async def me(user: Annotated[dict[str, Any], Depends(current_user)]) -> Any:
        return {"email": user["email"]}

    return app


def create_fastapi_users() -> FastAPI:
    """fastapi-users (its SQLAlchemy user table in SQLite, a cookie transport, the JWT or,
    with ``BENCH_STRATEGY=database``, the database strategy)."""
    from .fastapi_users_app import create

    return create(os.environ["BENCH_SQLITE"], os.environ.get("BENCH_STRATEGY", "jwt"))
