"""The demo: a tiny site with a home page, a protected page, OAuth, password, e-mail and
passkey sign-in.

Run with ``make demo`` (or ``python -m io_bindings.demo``) and open
http://localhost:8000. Sign in with the demo provider (an OpenID Provider served by the
demo itself under ``/demo-op``, see :mod:`io_bindings.demo_op`), as ``demo`` / ``demo``,
with any e-mail address (the sign-in link is printed to the terminal and shown on
http://localhost:8000/dev/inbox; no mail is sent), or with a passkey (WebAuthn, the
experimental flag set): the first time, type an e-mail address and press "Sign up with
Passkey" (it registers a passkey and creates the user); after that, "Sign in with Passkey".
Browsers refuse an IP address as the passkey's relying party, so open the demo as
``localhost``, not ``127.0.0.1``, to use passkeys.

Users, passkeys (authenticators) and e-mail verification tokens live in SQLite, in
``.demo/auth.db`` (the directory ``DEMO_DIR``, created when missing), opened at start-up.
Sessions are JWTs by default, because password (credentials) sign-in only works with JWT
sessions; ``DEMO_SESSION_STRATEGY=database`` keeps sessions in SQLite instead and then
offers OAuth, e-mail and passkey sign-in only. Without ``AUTH_SECRET`` a secret is
generated once and kept in ``.demo/secret``, so sessions survive a restart.
"""

from __future__ import annotations

import hmac
import importlib.util
import os
import secrets
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import msgspec

from sansio_auth import AuthConfig, Request, Response, Theme
from sansio_auth.config import Strategy
from sansio_auth.pages import WEBAUTHN_SCRIPT
from sansio_auth.providers import Credentials, Email, Passkey

from ._cli import bind, serve_until_stopped
from .anyio import AuthApp
from .db.sqlite import SQLiteAdapter
from .demo_op import DemoOP
from .email import ConsoleSender
from .translate import (
    BAD_HOST,
    BadHost,
    Receive,
    Scope,
    Send,
    request_from_scope,
    send_asgi_response,
)

DEMO_USER = {"id": "1", "name": "Demo User", "email": "demo@example.com"}
DEMO_LOGIN = ("demo", "demo")
INBOX_PATH = "/dev/inbox"
OP_PATH = "/demo-op"


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Accept only the demo login (compared in constant time)."""
    username = str(credentials.get("username", ""))
    password = str(credentials.get("password", ""))
    if hmac.compare_digest(username, DEMO_LOGIN[0]) & hmac.compare_digest(password, DEMO_LOGIN[1]):
        return DEMO_USER
    return None


def data_dir() -> Path:
    """``DEMO_DIR`` or ``./.demo``, created (private to this user) when missing."""
    directory = Path(os.environ.get("DEMO_DIR") or ".demo")
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    return directory


def demo_secret(directory: Path) -> str:
    """``AUTH_SECRET``, else the secret kept in ``directory/secret`` (made on first run)."""
    if secret := os.environ.get("AUTH_SECRET"):
        return secret
    path = directory / "secret"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    secret = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w") as file:
        file.write(secret + "\n")
    return secret


def session_strategy() -> Strategy:
    """``DEMO_SESSION_STRATEGY``: ``jwt`` (default) or ``database``."""
    value = os.environ.get("DEMO_SESSION_STRATEGY") or "jwt"
    if value not in ("jwt", "database"):
        raise SystemExit(f"DEMO_SESSION_STRATEGY must be 'jwt' or 'database', not {value!r}")
    return "database" if value == "database" else "jwt"


SERVER_STACKS = {"fast": ("uvloop", "httptools"), "pure": ("asyncio", "h11")}
"""``DEMO_SERVER`` → uvicorn's (event loop, HTTP parser)."""


def server_stack() -> str:
    """``DEMO_SERVER``: ``fast`` (uvloop + httptools, the ``server`` extra) or ``pure``
    (asyncio + h11, pure Python); by default ``fast`` when both are installed."""
    value = os.environ.get("DEMO_SERVER") or ""
    if not value:
        fast = all(importlib.util.find_spec(name) for name in SERVER_STACKS["fast"])
        return "fast" if fast else "pure"
    if value not in SERVER_STACKS:
        raise SystemExit(f"DEMO_SERVER must be 'fast' or 'pure', not {value!r}")
    return value


def port() -> int:
    """``PORT``, default 8000."""
    return int(os.environ.get("PORT") or "8000")


def config(
    directory: Path,
    sender: ConsoleSender,
    adapter: SQLiteAdapter,
    strategy: Strategy = "jwt",
    op: DemoOP | None = None,
) -> AuthConfig:
    """The demo's configuration: users in ``adapter``, e-mail links through ``sender``,
    OAuth through the demo's own ``op``, passkeys (experimental) kept in ``adapter``."""
    providers: list[Any] = [Email(send_verification_request=sender), Passkey()]
    if op is not None:
        providers.insert(0, op.provider())
    if strategy == "jwt":  # credentials sign-in needs JWT sessions
        providers.insert(
            len(providers) - 2,
            Credentials(
                authorize=authorize,
                credentials={
                    "username": {"label": "Username", "placeholder": "demo"},
                    "password": {"label": "Password", "type": "password"},
                },
            ),
        )
    return AuthConfig(
        secret=demo_secret(directory),
        trust_host=True,
        adapter=adapter,
        session={"strategy": strategy},
        providers=providers,
        theme=Theme(brand_color="#0b7285"),
        experimental={"enable_webauthn": True},
    )


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>body{{font:16px/1.5 system-ui,sans-serif;"
        "max-width:40rem;margin:3rem auto;padding:0 1rem}nav a{margin-right:1rem}"
        "pre{background:#f4f4f4;padding:1rem;border-radius:.5rem;white-space:pre-wrap}"
        "li{margin-bottom:1rem;overflow-wrap:anywhere}</style></head><body>"
        '<nav><a href="/">Home</a><a href="/protected">Protected page</a>'
        '<a href="/auth/signin">Sign in</a><a href="/auth/signout">Sign out</a>'
        f'<a href="{INBOX_PATH}">Dev inbox</a></nav>'
        f"<h1>{escape(title)}</h1>{body}</body></html>"
    )


def _time(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment is not None else "never"


class DemoSite:
    """The site's own pages; auth routes are served by the :class:`AuthApp` around it."""

    def __init__(
        self,
        directory: Path | None = None,
        strategy: Strategy | None = None,
        origin: str | None = None,
    ) -> None:
        directory = directory or data_dir()
        self.strategy = strategy or session_strategy()
        self.sender = ConsoleSender()
        self.adapter = SQLiteAdapter(directory / "auth.db")
        self.op = DemoOP((origin or f"http://127.0.0.1:{port()}") + OP_PATH)
        self.auth_app = AuthApp(
            config(directory, self.sender, self.adapter, self.strategy, self.op), app=self
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if self.op.serves(scope["path"]):
            await self.op(scope, receive, send)
            return
        try:
            request = request_from_scope(scope, b"")
        except BadHost:
            await send_asgi_response(send, BAD_HOST)
            return
        read = await self.auth_app.auth.session(request)
        session, cookies = read.data, read.cookies
        path = scope["path"]
        if path == "/":
            add_passkey = ""
            if session is not None:
                add_passkey, csrf_cookies = await self._add_passkey_form(request)
                cookies = (*cookies, *csrf_cookies)
            html = _page("sansio-auth demo", self._home(session) + add_passkey)
        elif path == "/protected":
            if session is None:
                location = "/auth/signin?callbackUrl=" + quote("/protected", safe="")
                redirect = Response(status=302, headers=(("location", location),), cookies=cookies)
                await send_asgi_response(send, redirect)
                return
            user = session.get("user", {})
            name = user.get("name") or user.get("email")
            html = _page(
                "Protected page",
                f"<p>Only signed-in users see this. Hello, {escape(str(name))}!</p>",
            )
        elif path == INBOX_PATH:
            html = _page("Dev inbox", self._inbox())
        else:
            await send_asgi_response(send, Response(status=404, body=b"Not Found"))
            return
        page = Response(
            headers=(("content-type", "text/html; charset=utf-8"),),
            cookies=cookies,
            body=html.encode(),
        )
        await send_asgi_response(send, page)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """Open the database at start-up (schema made, a bad file found now); close it at exit."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.adapter.open()
                except Exception as err:
                    failed = f"cannot open the demo database: {err}"
                    await send({"type": "lifespan.startup.failed", "message": failed})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.adapter.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _home(self, session: Any) -> str:
        ways = (
            "<p>Sign in with the <b>demo provider</b>: an OpenID Provider served by this demo "
            f"(under <code>{OP_PATH}</code>), to see the whole OAuth flow with no account.</p>"
        )
        ways += (
            f"<p>Demo user: <b>{DEMO_LOGIN[0]}</b>, password <b>{DEMO_LOGIN[1]}</b>.</p>"
            if self.strategy == "jwt"
            else "<p>Sessions are kept in the database: no password sign-in.</p>"
        )
        ways += (
            "<p>Or sign in with any e-mail address: the link is printed to the terminal "
            f'and shown in the <a href="{INBOX_PATH}">dev inbox</a>.</p>'
            "<p>Or with a <b>passkey</b>: the first time, type an e-mail address and press "
            "<i>Sign up with Passkey</i> (it registers a passkey and creates the user); after "
            "that, press <i>Sign in with Passkey</i>. Passkeys need the site opened as "
            "<code>localhost</code> (browsers refuse an IP address).</p>"
        )
        if session is None:
            state = '<p>You are <b>not signed in</b>. <a href="/auth/signin">Sign in</a>.</p>'
        else:
            state = '<p>You are <b>signed in</b>. <a href="/auth/signout">Sign out</a>.</p>'
        shown = escape(msgspec.json.format(msgspec.json.encode(session), indent=2).decode())
        return f"{state}{ways}<h2>Session</h2><pre>{shown}</pre>"

    async def _add_passkey_form(self, request: Request) -> tuple[str, tuple[Any, ...]]:
        """A form that registers another passkey for the signed-in user, run by the sign-in
        page's script; its CSRF token (and cookie) from the engine's ``GET csrf``."""
        origin = "/".join(request.url.split("/", 3)[:3])
        asked = Request(method="GET", url=f"{origin}/auth/csrf", headers=request.headers)
        reply = await self.auth_app.auth.respond(asked)
        assert reply is not None  # /auth/csrf is an auth route
        token = str(reply.json()["csrfToken"])
        form = (
            "<h2>Passkeys</h2><p>Add a passkey to this account, e.g. one on another device.</p>"
            '<form id="add-passkey" method="POST" action="/auth/callback/passkey" '
            'data-webauthn-options="/auth/webauthn-options/passkey">'
            f'<input type="hidden" name="csrfToken" value="{escape(token)}">'
            '<p class="error" role="alert" data-webauthn-error hidden></p>'
            '<button type="submit" name="action" value="register">Add a passkey</button>'
            f"</form><script>{WEBAUTHN_SCRIPT}</script>"
        )
        return form, reply.cookies

    def _inbox(self) -> str:
        sent = self.sender.sent
        if not sent:
            return "<p>No sign-in links yet. Ask for one on the sign-in page.</p>"
        items = "".join(
            f'<li class="mail"><b class="to">{escape(mail.identifier)}</b><br>'
            f"{escape(mail.message.subject)} · sent {_time(mail.sent_at)} · "
            f"expires {_time(mail.expires)}<br>"
            f'<a class="link" href="{escape(mail.url)}">{escape(mail.url)}</a></li>'
            for mail in sent
        )
        return (
            "<p>The sign-in e-mails the console sender would have sent, newest first. "
            "For development only: whoever sees this page can sign in as anyone.</p>"
            f"<ol>{items}</ol>"
        )


def main() -> None:
    """Serve the demo with uvicorn on 127.0.0.1, port ``PORT`` (default 8000), on the
    stack ``DEMO_SERVER`` names."""
    loop, http = SERVER_STACKS[server_stack()]
    number = port()
    sock = bind(
        "127.0.0.1",
        number,
        program="demo",
        pick_another=f"PORT, e.g. `PORT={number + 1} make demo`",
    )
    site = DemoSite(origin=f"http://127.0.0.1:{number}")
    logins = (
        "demo provider, demo / demo or e-mail"
        if site.strategy == "jwt"
        else "demo provider or e-mail"
    )
    print(
        f"sansio-auth demo on http://localhost:{number}  ({logins} or passkey; "
        f"links at http://localhost:{number}{INBOX_PATH}; {site.strategy} sessions; "
        f"uvicorn on {loop} + {http}); press Ctrl-C to stop",
        flush=True,
    )
    # uvicorn listens once the database is open
    serve_until_stopped(site.auth_app, sock, loop=loop, http=http)


if __name__ == "__main__":
    main()
