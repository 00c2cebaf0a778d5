"""A passkey registration and sign-in through a framework adapter, with the software
authenticator: every adapter serves ``webauthn-options`` and the WebAuthn callback."""

from __future__ import annotations

import json
from typing import Any

import cbor2
import httpx

from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig
from sansio_auth.oauth.checks import b64url, unb64url
from sansio_auth.providers import Passkey
from sansio_auth.testing import SECRET, seeded_entropy
from sansio_auth.testing.webauthn import SoftAuthenticator


def passkey_config(**options: Any) -> AuthConfig:
    """Passkeys on the memory adapter (database sessions)."""
    options.setdefault("adapter", MemoryAdapter())
    options.setdefault("providers", [Passkey()])
    return AuthConfig(
        secret=SECRET, trust_host=True, experimental={"enable_webauthn": True}, **options
    )


def passkey_ceremony(http: httpx.Client, key: SoftAuthenticator, base: str, **query: str) -> None:
    """One WebAuthn ceremony of ``key`` at ``base`` (``query``: ``email=``, ``action=``),
    ending in the callback's redirect to the site."""
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
    assert done.headers["location"].rstrip("/") == origin, done.headers["location"]


def check_passkey_round_trip(http: httpx.Client, base: str) -> None:
    """Register Ann's passkey, sign out, sign in with it: the session is Ann's each time."""
    key = SoftAuthenticator(entropy=seeded_entropy("adapter"))
    passkey_ceremony(http, key, base, action="register", email="ann@example.com")
    assert http.get(f"{base}/session").json()["user"]["email"] == "ann@example.com"
    csrf = http.get(f"{base}/csrf").json()["csrfToken"]
    assert http.post(f"{base}/signout", data={"csrfToken": csrf}).status_code == 302
    assert http.get(f"{base}/session").json() is None
    passkey_ceremony(http, key, base)
    assert http.get(f"{base}/session").json()["user"]["email"] == "ann@example.com"


def check_passkey_privacy_and_attestation(http: httpx.Client, base: str) -> None:
    """After :func:`check_passkey_round_trip` (Ann has a passkey), signed out: the options
    for Ann's address and for an unknown one have the same shape and list no credential;
    a ``none`` attestation with a statement is refused and stores nothing."""
    csrf = http.get(f"{base}/csrf").json()["csrfToken"]
    http.post(f"{base}/signout", data={"csrfToken": csrf})
    answers = [
        http.get(f"{base}/webauthn-options/passkey", params={"email": address}).json()
        for address in ("ann@example.com", "nobody@example.com")
    ]
    for answer in answers:
        assert answer["action"] == "authenticate"
        assert sorted(answer["options"]) == ["challenge", "rpId", "timeout", "userVerification"]
    query = {"action": "register", "email": "new@example.com"}
    options = http.get(f"{base}/webauthn-options/passkey", params=query).json()
    origin = str(http.base_url).rstrip("/")
    key = SoftAuthenticator(entropy=seeded_entropy("forged attestation"))
    data = key.respond(options, origin=origin)
    attestation = cbor2.loads(unb64url(data["response"]["attestationObject"]))
    attestation["attStmt"] = {"x5u": "https://evil.example/chain"}
    data["response"]["attestationObject"] = b64url(cbor2.dumps(attestation))
    csrf = http.get(f"{base}/csrf").json()["csrfToken"]
    form = {"action": "register", "data": json.dumps(data), "csrfToken": csrf}
    refused = http.post(f"{base}/callback/passkey", data=form)
    assert refused.status_code == 302
    assert refused.headers["location"].endswith("error=WebAuthnVerificationError")
    assert http.get(f"{base}/session").json() is None
