"""A passkey registration and sign-in through a framework adapter, with the software
authenticator: every adapter serves ``webauthn-options`` and the WebAuthn callback."""

from __future__ import annotations

import json
from typing import Any

import httpx

from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig
from sansio_auth.providers import Passkey
from sansio_auth.testing import SECRET, seeded_entropy
from sansio_auth.testing.webauthn import SoftAuthenticator


def passkey_config(**options: Any) -> AuthConfig:
    """Passkeys on the memory adapter (database sessions)."""
    options.setdefault("adapter", MemoryAdapter())
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        providers=[Passkey()],
        experimental={"enable_webauthn": True},
        **options,
    )


def _ceremony(http: httpx.Client, key: SoftAuthenticator, base: str, **query: str) -> None:
    reply = http.get(f"{base}/webauthn-options/passkey", params=query)
    assert reply.status_code == 200, reply.text
    assert "authjs.challenge" in http.cookies
    options = reply.json()
    origin = str(http.base_url).rstrip("/")
    csrf = http.get(f"{base}/csrf").json()["csrfToken"]
    data = json.dumps(key.respond(options, origin=origin))
    form = {"action": options["action"], "data": data, "csrfToken": csrf}
    done = http.post(f"{base}/callback/passkey", data=form)
    assert done.status_code == 302, done.text
    assert done.headers["location"] == origin, done.headers["location"]


def check_passkey_round_trip(http: httpx.Client, base: str) -> None:
    """Register Ann's passkey, sign out, sign in with it: the session is Ann's each time."""
    key = SoftAuthenticator(entropy=seeded_entropy("adapter"))
    _ceremony(http, key, base, action="register", email="ann@example.com")
    assert http.get(f"{base}/session").json()["user"]["email"] == "ann@example.com"
    csrf = http.get(f"{base}/csrf").json()["csrfToken"]
    assert http.post(f"{base}/signout", data={"csrfToken": csrf}).status_code == 302
    assert http.get(f"{base}/session").json() is None
    _ceremony(http, key, base)
    assert http.get(f"{base}/session").json()["user"]["email"] == "ann@example.com"
