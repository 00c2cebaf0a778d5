"""The auth module: the config, ``handle``, ``sign_in``, ``sign_out`` and the hooks.

Providers: a password login (``demo`` / ``demo``), password accounts (sign-up, e-mail
verification, reset, two-factor with an authenticator app, recovery codes or a passkey: see
docs/accounts.md), passkeys (added on the security page, or at sign-in; open the site as
``localhost``: browsers refuse an IP address as the relying party), e-mail links (printed to
the console, or sent to ``EXAMPLE_SMTP_PORT`` on 127.0.0.1 when set; the account e-mails go
the same way) and, when ``EXAMPLE_OIDC_ISSUER``, ``AUTH_OP_ID`` and ``AUTH_OP_SECRET`` are
set, an OpenID Connect provider ``op``.
With ``EXAMPLE_LAZY_CONFIG=1`` the config is a function of the request (lazy
initialization): a request with ``X-Example-Staging: 1`` also gets the staging provider.
``EXAMPLE_UPDATE_AGE`` (seconds, default a day) is how often the session cookie is re-issued.
Users live in memory, or in SQLite (``EXAMPLE_DB``, a file) or PostgreSQL
(``EXAMPLE_POSTGRES``, a DSN) when set.
Sessions are revocable JWTs, so that ``/auth/security`` lists them (and the linked accounts)
and ends them; ``EXAMPLE_FRESH_AGE`` (default a day) is how recent a sign-in the sensitive
operations need (changing the password or e-mail, turning two-factor off, unlinking an
account, deleting the user).
"""

from __future__ import annotations

import hmac
import os
from typing import Any

from django.http import HttpRequest

from io_bindings.db.memory import MemoryAdapter
from io_bindings.django import DjangoAuth, protect_prefix, sequence
from io_bindings.email import ConsoleSender, SMTPSender
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials, Email, Passkey, Password

DEMO_USER = {"id": "1", "name": "Demo User", "email": "demo@example.com"}


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Accept only ``demo`` / ``demo`` (compared in constant time)."""
    username = str(credentials.get("username", "")).encode()
    password = str(credentials.get("password", "")).encode()
    if hmac.compare_digest(username, b"demo") & hmac.compare_digest(password, b"demo"):
        return DEMO_USER
    return None


def _sender() -> Any:
    port = os.environ.get("EXAMPLE_SMTP_PORT")
    if port:
        return SMTPSender("127.0.0.1", int(port), security="none", from_="auth@example.com")
    return ConsoleSender()


def make_config(*, staging: bool = False) -> AuthConfig:
    """The example's configuration (secret and trust from ``AUTH_*`` in settings)."""
    providers: list[Any] = [
        Credentials(
            authorize=authorize,
            credentials={
                "username": {"label": "Username"},
                "password": {"label": "Password", "type": "password"},
            },
        ),
        Email(send_verification_request=_sender()),
        Password(),  # account e-mails through the e-mail provider's sender
        Passkey(),  # a way in, and a second factor once registered on the security page
    ]
    if issuer := os.environ.get("EXAMPLE_OIDC_ISSUER"):
        providers.append({"id": "op", "name": "Test OP", "type": "oidc", "issuer": issuer})
    if staging:
        providers.append(
            Credentials(id="staging", name="Staging", authorize=authorize, credentials={})
        )
    session = {
        "strategy": "jwt",
        "revocation": True,  # the security page lists and ends the user's sessions
        "update_age": int(os.environ.get("EXAMPLE_UPDATE_AGE", 86400)),
        "fresh_age": int(os.environ.get("EXAMPLE_FRESH_AGE", 86400)),
    }
    return AuthConfig(
        adapter=_adapter(),
        session=session,
        providers=providers,
        two_factor={"trust_device_days": 30},  # password and e-mail link sign-ins, once set up
        experimental={"enable_webauthn": True},  # passkeys (experimental in Auth.js too)
    )


def _adapter() -> Any:
    """PostgreSQL (``EXAMPLE_POSTGRES``), SQLite (``EXAMPLE_DB``), else memory."""
    if dsn := os.environ.get("EXAMPLE_POSTGRES"):
        from io_bindings.db.postgres import PostgresAdapter

        return PostgresAdapter(dsn)
    if path := os.environ.get("EXAMPLE_DB"):
        from io_bindings.db.sqlite import SQLiteAdapter

        return SQLiteAdapter(path)
    return MemoryAdapter()


if os.environ.get("EXAMPLE_LAZY_CONFIG") == "1":
    CONFIGS = {False: make_config(), True: make_config(staging=True)}

    async def config_for(request: HttpRequest) -> AuthConfig:
        """Lazy initialization: the config for this request (here, by a header)."""
        return CONFIGS[request.headers.get("x-example-staging") == "1"]

    handle, sign_in, sign_out = DjangoAuth(config_for)
else:
    handle, sign_in, sign_out = DjangoAuth(make_config())

hooks = sequence(handle, protect_prefix("/account/"))
