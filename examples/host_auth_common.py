"""What the FastAPI and Starlette examples share: the auth config and the HTML pages.

Providers: a password login (``demo`` / ``demo``), password accounts (sign-up, e-mail
verification, reset, two-factor with an authenticator app, recovery codes or a passkey: see
docs/accounts.md), passkeys (added on the security page, or at sign-in; open the site as
``localhost``: browsers refuse an IP address as the relying party), e-mail links (printed to
the console, or sent to ``EXAMPLE_SMTP_PORT`` on 127.0.0.1 when set; the account e-mails go
the same way), GitHub (when ``AUTH_GITHUB_ID`` and ``AUTH_GITHUB_SECRET`` are set) and,
when ``EXAMPLE_OIDC_ISSUER``, ``AUTH_OP_ID`` and ``AUTH_OP_SECRET`` are set, an OpenID
Connect provider ``op``. Users, accounts, passkeys and e-mail tokens live in SQLite
(``EXAMPLE_DB``, default ``example-auth.db``), or in PostgreSQL when ``EXAMPLE_POSTGRES`` is
a DSN (the ``postgres`` extra); sessions are JWTs, revocable, so
that ``/api/auth/security`` lists them (and the linked accounts) and ends them.
``EXAMPLE_UPDATE_AGE`` (seconds, default a day) is how often the session cookie is
re-issued; ``EXAMPLE_FRESH_AGE`` (default a day) how recent a sign-in the sensitive
operations need (changing the password or e-mail, turning two-factor off, unlinking an
account, deleting the user). With ``EXAMPLE_LAZY_CONFIG=1`` the config is a function of the
request: a request with ``X-Example-Staging: 1`` also gets a ``staging`` password provider.
"""

from __future__ import annotations

import hmac
import os
from html import escape
from typing import Any

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from io_bindings.db.sqlite import SQLiteAdapter
from io_bindings.email import ConsoleSender, SMTPSender
from io_bindings.starlette import HostAuth, HostAuthResult, Session
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials, Email, GitHub, Passkey, Password

DEMO_USER = {"id": "demo", "name": "Demo User", "email": "demo@example.com"}


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Accept only ``demo`` / ``demo`` (compared in constant time)."""
    username = str(credentials.get("username", "")).encode()
    password = str(credentials.get("password", "")).encode()
    if hmac.compare_digest(username, b"demo") & hmac.compare_digest(password, b"demo"):
        return DEMO_USER
    return None


def jwt(token: dict[str, Any], trigger: str | None, session: Any) -> dict[str, Any]:
    """Keep the name an "update my name" form sends (``unstable_update``)."""
    if trigger == "update" and isinstance(session, dict):
        name = (session.get("user") or {}).get("name")
        if isinstance(name, str) and name.strip():
            token["name"] = name.strip()[:80]
    return token


def authorized(auth: Session | None, request: Request) -> bool | str | Response:
    """Route protection, run by the middleware for every page and API route."""
    path = request.url.path
    if path.startswith("/dashboard"):
        return auth is not None  # False: to the sign-in page, and back here afterwards
    if path.startswith("/admin/"):  # an API: answer JSON rather than redirect
        return auth is not None or JSONResponse({"error": "sign in first"}, status_code=401)
    if path == "/me":
        return "/dashboard"  # a short link
    return True


def _sender() -> Any:
    port = os.environ.get("EXAMPLE_SMTP_PORT")
    if port:
        return SMTPSender("127.0.0.1", int(port), security="none", from_="auth@example.com")
    return ConsoleSender()


def make_config(*, staging: bool = False) -> AuthConfig:
    """The example's config; the secret and provider keys come from ``AUTH_*`` variables."""
    password = {"username": {"label": "Username"}, "password": {"label": "Password",
                                                                  "type": "password"}}  # fmt: skip
    providers: list[Any] = [
        Credentials(authorize=authorize, credentials=password),
        Email(send_verification_request=_sender()),
        Password(),  # account e-mails through the e-mail provider's sender
        Passkey(),  # a way in, and a second factor once registered on the security page
    ]
    if os.environ.get("AUTH_GITHUB_ID"):
        providers.append(GitHub())
    if issuer := os.environ.get("EXAMPLE_OIDC_ISSUER"):
        providers.append({"id": "op", "name": "Test OP", "type": "oidc", "issuer": issuer})
    if staging:
        providers.append(Credentials(id="staging", name="Staging", authorize=authorize))
    return AuthConfig(
        adapter=_adapter(),
        session={
            "strategy": "jwt",
            "revocation": True,  # the security page lists and ends the user's sessions
            "update_age": int(os.environ.get("EXAMPLE_UPDATE_AGE", 86400)),
            "fresh_age": int(os.environ.get("EXAMPLE_FRESH_AGE", 86400)),
        },
        providers=providers,
        callbacks={"jwt": jwt, "authorized": authorized},
        two_factor={"trust_device_days": 30},  # password and e-mail link sign-ins, once set up
        experimental={"enable_webauthn": True},  # passkeys (experimental in Auth.js too)
    )


def _adapter() -> Any:
    """PostgreSQL with ``EXAMPLE_POSTGRES`` (a DSN), else the SQLite file ``EXAMPLE_DB``."""
    if dsn := os.environ.get("EXAMPLE_POSTGRES"):
        from io_bindings.db.postgres import PostgresAdapter

        return PostgresAdapter(dsn)
    return SQLiteAdapter(os.environ.get("EXAMPLE_DB", "example-auth.db"))


def make_auth() -> HostAuthResult:
    """``HostAuth`` on the example's config (or, with ``EXAMPLE_LAZY_CONFIG=1``, a function)."""
    if os.environ.get("EXAMPLE_LAZY_CONFIG") != "1":
        return HostAuth(make_config())
    configs = {False: make_config(), True: make_config(staging=True)}

    async def config_for(request: HTTPConnection) -> AuthConfig:
        """Lazy initialization: the config for this request (here, by a header)."""
        return configs[request.headers.get("x-example-staging") == "1"]

    return HostAuth(config_for)


def page(title: str, body: str) -> str:
    """A whole HTML page."""
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        "</head><body><nav><a href='/'>Home</a> · <a href='/dashboard'>Dashboard</a> · "
        "<a href='/api/me'>/api/me</a> · <a id='security' href='/api/auth/security'>Security</a>"
        f"</nav><h1>{escape(title)}</h1>{body}</body></html>"
    )


def home_body(session: Session | None, error: str | None) -> str:
    """The home page: who is signed in, and the forms (sign-in, sign-out, update)."""
    parts = []
    if error:
        parts.append(f"<p id='error'>Sign-in failed ({escape(error)})</p>")
    user = (session or {}).get("user") or {}
    if not session:
        parts.append("<p id='greeting'>Not signed in</p>")
        parts.append(
            "<form method='post' action='/signin'><input type='hidden' name='provider' "
            "value='credentials'><input id='username' name='username' placeholder='demo'>"
            "<input id='password' name='password' type='password' placeholder='demo'>"
            "<input type='hidden' name='redirectTo' value='/dashboard'>"
            "<button id='credentials-submit'>Sign in</button></form>"
            "<form method='post' action='/signin'><input type='hidden' name='provider' "
            "value='email'><input id='email' name='email' type='email'>"
            "<button>E-mail me a link</button></form>"
            "<p><a href='/api/auth/signin'>All sign-in options</a> · "
            "<a id='signup' href='/api/auth/signup'>Create an account</a></p>"
        )
        if os.environ.get("AUTH_GITHUB_ID"):
            parts.append(
                "<form method='post' action='/signin'><input type='hidden' name='provider' "
                "value='github'><button>Sign in with GitHub</button></form>"
            )
    else:
        name = escape(str(user.get("name") or user.get("email") or "someone"))
        parts.append(f"<p id='greeting'>Signed in as {name}</p>")
        parts.append(
            "<form method='post' action='/name'><input id='name' name='name'>"
            "<button id='name-submit'>Update my name</button></form>"
            "<form method='post' action='/signout'><button id='signout'>Sign out</button></form>"
            "<p>Security: <a id='two-factor' href='/api/auth/two-factor-setup'>two-factor "
            "authentication</a> · <a href='/api/auth/change-password'>change password</a> · "
            "<a href='/api/auth/change-email'>change e-mail address</a></p>"
        )
    return "".join(parts)


def dashboard_body(session: Session) -> str:
    """The protected page."""
    user = session.get("user") or {}
    return (
        f"<p id='email'>{escape(str(user.get('email') or ''))}</p>"
        f"<p>Session expires {escape(str(session.get('expires', '')))}</p>"
    )
