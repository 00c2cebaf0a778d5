"""The app the configuration e2e test serves (``uvicorn config_app:app``): a provider given
as Auth.js gives one, a function returning a provider object whose ``options`` deep-merge
over the rest, on a server whose ``AUTH_URL`` path is not its ``base_path``."""

from __future__ import annotations

from typing import Any

from io_bindings.anyio import AuthApp
from sansio_auth import AuthConfig

SECRET = "config-e2e-secret-that-is-long-enough-0123456789"


def acme() -> dict[str, Any]:
    """An Auth.js function provider: its object, the user's ``options`` inside."""
    return {
        "id": "acme",
        "name": "Acme",
        "type": "oauth",
        "client_id": "acme-client",
        "client_secret": "acme-secret",
        "authorization": {
            "url": "https://op.example/authorize",
            "params": {"claims": {"userinfo": {"email": {"essential": True}}}},
        },
        "token": "https://op.example/token",
        "userinfo": "https://op.example/userinfo",
        "options": {
            "authorization": {"params": {"claims": {"userinfo": {"name": {"essential": True}}}}}
        },
    }


app = AuthApp(AuthConfig(secret=SECRET, trust_host=True, base_path="/auth", providers=[acme]))
