"""The app the soak serves (``uvicorn soak.app:app``): like the demo, password sign-in and an
OpenID Provider, users in SQLite, JWT sessions.

Configured by the JSON file named in ``SOAK_CONFIG`` (written by :mod:`soak.run` once the
OP is up): ``secret``, ``database`` (a SQLite file), ``issuer``, ``client_id`` and
``client_secret`` (a client of the OP).
"""

from __future__ import annotations

import hmac
import json
import os
from pathlib import Path
from typing import Any

from io_bindings.anyio import AuthApp
from io_bindings.db.sqlite import SQLiteAdapter
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials

USERNAME, PASSWORD = "soak", "soak-password"
USER = {"id": "soak-user", "name": "Soak User", "email": "soak@example.com"}
PROVIDER_ID = "op"


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """The one known login (compared in constant time)."""
    username = str(credentials.get("username", "")).encode()
    password = str(credentials.get("password", "")).encode()
    known = hmac.compare_digest(username, USERNAME.encode())
    if known & hmac.compare_digest(password, PASSWORD.encode()):
        return USER
    return None


def config(options: dict[str, Any], adapter: SQLiteAdapter) -> AuthConfig:
    """Credentials and the OP as an ``oidc`` provider, users in ``adapter``, JWT sessions."""
    op = {
        "id": PROVIDER_ID,
        "name": "Test OP",
        "type": "oidc",
        "issuer": options["issuer"],
        "client_id": options["client_id"],
        "client_secret": options["client_secret"],
    }
    return AuthConfig(
        secret=options["secret"],
        trust_host=True,
        adapter=adapter,
        session={"strategy": "jwt"},
        providers=[op, Credentials(authorize=authorize)],
        # 64 connections signing in from one address for minutes: no person does that, the
        # rate limits would (rightly) answer 429; they are tested in tests/io_bindings.
        rate_limits={"enabled": False},
    )


def make_app() -> AuthApp:
    """The app for the configuration in ``SOAK_CONFIG``."""
    options = json.loads(Path(os.environ["SOAK_CONFIG"]).read_text())
    return AuthApp(config(options, SQLiteAdapter(options["database"])))


app = make_app() if "SOAK_CONFIG" in os.environ else None
