"""An aiohttp.web site signing in with sansio-auth: ``python examples/aiohttp_app.py``.

Providers: a password login (``demo`` / ``demo``), e-mail links (users and tokens in
SQLite; links printed to the console, or sent to ``EXAMPLE_SMTP_PORT`` on 127.0.0.1),
GitHub when ``AUTH_GITHUB_ID``/``AUTH_GITHUB_SECRET`` are set, and an OpenID Connect
provider ``op`` when ``EXAMPLE_OIDC_ISSUER``, ``AUTH_OP_ID`` and ``AUTH_OP_SECRET`` are.

``/protected`` and ``/account/...`` are protected by the ``protect`` middleware;
``/dashboard`` reads the session in its handler (``require_session``). Signed out, both
redirect to the sign-in page, which brings the user back once signed in.

Environment: ``PORT`` (8000), ``EXAMPLE_DB`` (``.aiohttp-example/auth.db``),
``EXAMPLE_UPDATE_AGE`` (seconds between session cookie re-issues, default a day),
``AUTH_SECRET`` (run as a script: a random one per start if unset) and ``AUTH_TRUST_HOST``
(run as a script: ``true`` if unset, for local development).
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import sys
from html import escape
from pathlib import Path
from typing import Any

from aiohttp import web

from io_bindings.aiohttp import AiohttpAuth, get_session, require_session, send_session_cookies
from io_bindings.db.sqlite import SQLiteAdapter
from io_bindings.email import ConsoleSender, SMTPSender
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials, Email, GitHub

DEMO_USER = {"id": "1", "name": "Demo User", "email": "demo@example.com"}


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Accept only ``demo`` / ``demo`` (compared in constant time)."""
    username = str(credentials.get("username", "")).encode()
    password = str(credentials.get("password", "")).encode()
    if hmac.compare_digest(username, b"demo") & hmac.compare_digest(password, b"demo"):
        return DEMO_USER
    return None


def make_config() -> AuthConfig:
    """The site's configuration; the secret comes from ``AUTH_SECRET``."""
    port = os.environ.get("EXAMPLE_SMTP_PORT")
    sender: Any = ConsoleSender()
    if port:
        sender = SMTPSender("127.0.0.1", int(port), security="none", from_="auth@example.com")
    providers: list[Any] = [
        Credentials(
            authorize=authorize,
            credentials={
                "username": {"label": "Username"},
                "password": {"label": "Password", "type": "password"},
            },
        ),
        Email(send_verification_request=sender),
    ]
    if os.environ.get("AUTH_GITHUB_ID"):  # credentials in the provider's override record
        providers.append(
            GitHub(
                client_id=os.environ["AUTH_GITHUB_ID"],
                client_secret=os.environ.get("AUTH_GITHUB_SECRET", ""),
            )
        )
    if issuer := os.environ.get("EXAMPLE_OIDC_ISSUER"):
        providers.append(
            {
                "id": "op",
                "name": "Test OP",
                "type": "oidc",
                "issuer": issuer,
                "client_id": os.environ.get("AUTH_OP_ID", ""),
                "client_secret": os.environ.get("AUTH_OP_SECRET", ""),
            }
        )
    database = Path(os.environ.get("EXAMPLE_DB", ".aiohttp-example/auth.db"))
    database.parent.mkdir(parents=True, exist_ok=True)
    update_age = int(os.environ.get("EXAMPLE_UPDATE_AGE", 86400))
    return AuthConfig(
        adapter=SQLiteAdapter(database),
        session={"strategy": "jwt", "update_age": update_age},  # jwt: credentials need it
        providers=providers,
    )


CONFIG = web.AppKey("config", AuthConfig)


def page(title: str, body: str) -> web.Response:
    nav = (
        '<nav><a href="/">Home</a> · <a href="/protected">Protected</a> · '
        '<a href="/account/">Account</a> · <a href="/dashboard">Dashboard</a> · '
        '<a href="/api/auth/signin">Sign in</a> · <a href="/api/auth/signout">Sign out</a></nav>'
    )
    html = f"<!DOCTYPE html><title>{escape(title)}</title>{nav}<h1>{escape(title)}</h1>{body}"
    return web.Response(text=html, content_type="text/html")


def describe(session: dict[str, Any] | None) -> str:
    if session is None:
        return '<p>Not signed in. <a href="/api/auth/signin">Sign in</a></p>'
    name = session.get("user", {}).get("name") or session.get("user", {}).get("email")
    dump = escape(json.dumps(session, indent=2))
    return f"<p>Signed in as {escape(str(name))}.</p><pre>{dump}</pre>"


async def home(request: web.Request) -> web.Response:
    return page("aiohttp + sansio-auth", describe(await get_session(request, request.app[CONFIG])))


async def protected(request: web.Request) -> web.Response:
    return page("Protected", describe(request["auth"]))  # set by the protect middleware


async def account(request: web.Request) -> web.Response:
    return page("Account", describe(request["auth"]) + f"<p>{escape(request.path)}</p>")


async def dashboard(request: web.Request) -> web.Response:
    session = await require_session(request, request.app[CONFIG])  # signed out: 302 to sign in
    return page("Dashboard", describe(session))


async def me(request: web.Request) -> web.Response:
    return web.json_response({"session": await get_session(request, request.app[CONFIG])})


def make_app(config: AuthConfig | None = None) -> web.Application:
    """The site: the auth routes under ``/api/auth``, its pages and the protection."""
    config = config if config is not None else make_config()
    auth = AiohttpAuth(config)
    app = web.Application(middlewares=[auth.protect(["/protected", "/account/"])])
    app[CONFIG] = config
    app.add_routes(auth.routes())
    app.add_routes(
        [
            web.get("/", home),
            web.get("/protected", protected),
            web.get("/account/{rest:.*}", account),
            web.get("/dashboard", dashboard),
            web.get("/me", me),
        ]
    )
    app.on_response_prepare.append(send_session_cookies)  # cookies get_session re-issued
    app.on_cleanup.append(auth.aclose)
    return app


def main() -> None:
    if not os.environ.get("AUTH_SECRET"):
        print("AUTH_SECRET is unset: using a random one (sessions end at restart)", file=sys.stderr)
        os.environ["AUTH_SECRET"] = secrets.token_urlsafe(33)
    os.environ.setdefault("AUTH_TRUST_HOST", "true")
    web.run_app(make_app(), host="127.0.0.1", port=int(os.environ.get("PORT", 8000)))


if __name__ == "__main__":
    main()
