"""The demo: a tiny site with a home page, a protected page and credentials sign-in.

Run with ``make demo`` (or ``python -m io_bindings.demo``) and open
http://127.0.0.1:8000. Sign in as ``demo`` / ``demo``.
"""

from __future__ import annotations

import hmac
import os
import secrets
from html import escape
from typing import Any
from urllib.parse import quote

from sansio_auth import AuthConfig, Response, Theme
from sansio_auth.providers import Credentials

from .anyio import AuthApp, Receive, Scope, Send, send_response

DEMO_USER = {"id": "1", "name": "Demo User", "email": "demo@example.com"}
DEMO_LOGIN = ("demo", "demo")


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Accept only the demo login (compared in constant time)."""
    username = str(credentials.get("username", ""))
    password = str(credentials.get("password", ""))
    if hmac.compare_digest(username, DEMO_LOGIN[0]) & hmac.compare_digest(password, DEMO_LOGIN[1]):
        return DEMO_USER
    return None


def config() -> AuthConfig:
    """The demo's configuration (a random secret unless ``AUTH_SECRET`` is set)."""
    return AuthConfig(
        secret=os.environ.get("AUTH_SECRET") or secrets.token_urlsafe(32),
        trust_host=True,
        providers=[
            Credentials(
                authorize=authorize,
                credentials={
                    "username": {"label": "Username", "placeholder": "demo"},
                    "password": {"label": "Password", "type": "password"},
                },
            )
        ],
        theme=Theme(brand_color="#0b7285"),
    )


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>body{{font:16px/1.5 system-ui,sans-serif;"
        "max-width:40rem;margin:3rem auto;padding:0 1rem}nav a{margin-right:1rem}"
        "pre{background:#f4f4f4;padding:1rem;border-radius:.5rem}</style></head><body>"
        '<nav><a href="/">Home</a><a href="/protected">Protected page</a>'
        '<a href="/auth/signin">Sign in</a><a href="/auth/signout">Sign out</a></nav>'
        f"<h1>{escape(title)}</h1>{body}</body></html>"
    )


class DemoSite:
    """The site's own pages; auth routes are served by the :class:`AuthApp` around it."""

    def __init__(self) -> None:
        self.auth_app = AuthApp(config(), app=self)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers", ()))
        cookie = headers.get(b"cookie", b"").decode("latin-1") or None
        host = headers.get(b"host", b"127.0.0.1:8000").decode("latin-1")
        session = await self.auth_app.auth.session(f"{scope['scheme']}://{host}", cookie)
        path = scope["path"]
        if path == "/":
            html = _page("sansio-auth demo", self._home(session))
        elif path == "/protected":
            if session is None:
                location = "/auth/signin?callbackUrl=" + quote("/protected", safe="")
                await send_response(send, Response(status=302, headers=(("location", location),)))
                return
            user = session.get("user", {})
            html = _page(
                "Protected page",
                f"<p>Only signed-in users see this. Hello, {escape(str(user.get('name')))}!</p>",
            )
        else:
            await send_response(send, Response(status=404, body=b"Not Found"))
            return
        await send_response(
            send,
            Response(headers=(("content-type", "text/html; charset=utf-8"),), body=html.encode()),
        )

    @staticmethod
    def _home(session: Any) -> str:
        login = f"<p>Demo user: <b>{DEMO_LOGIN[0]}</b>, password <b>{DEMO_LOGIN[1]}</b>.</p>"
        if session is None:
            state = '<p>You are <b>not signed in</b>. <a href="/auth/signin">Sign in</a>.</p>'
        else:
            state = '<p>You are <b>signed in</b>. <a href="/auth/signout">Sign out</a>.</p>'
        shown = escape(str(session)) if session is not None else "null"
        return f"{state}{login}<h2>Session</h2><pre>{shown}</pre>"


def main() -> None:
    """Serve the demo with uvicorn on 127.0.0.1, port ``PORT`` (default 8000)."""
    import uvicorn

    site = DemoSite()
    port = int(os.environ.get("PORT", "8000"))
    print(f"sansio-auth demo on http://127.0.0.1:{port}  (sign in as demo / demo)")
    uvicorn.run(site.auth_app, host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
