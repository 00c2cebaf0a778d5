"""The apps the shipped recordings were made with (``module:attr`` for the record and
replay command lines): ``oidc`` (the real test OP; PKCE, state and nonce) and ``email``
(magic links over SMTP, the in-memory adapter).

What differs from run to run (the OP's issuer and client, the SMTP port) comes from the
environment (``RECORDING_ISSUER``, ``RECORDING_CLIENT_ID``, ``RECORDING_CLIENT_SECRET``,
``RECORDING_SMTP_PORT``) and defaults to what ``recorded.json`` says of the shipped
recordings. The client secret never needs to match on replay: it was redacted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from io_bindings.db.memory import MemoryAdapter
from io_bindings.email import SMTPSender
from sansio_auth import AuthConfig
from sansio_auth.providers import Email

HERE = Path(__file__).resolve().parent
SECRET = "recordings-secret-that-is-long-enough-0123456789"


def setting(name: str) -> str:
    """``RECORDING_<NAME>`` from the environment, else the shipped recordings' value."""
    value = os.environ.get(f"RECORDING_{name.upper()}")
    if value is not None:
        return value
    recorded: dict[str, str] = json.loads((HERE / "recorded.json").read_text())
    return recorded[name]


def oidc() -> AuthConfig:
    """Sign-in with the test OP (provider id ``op``)."""
    provider = {
        "id": "op",
        "name": "Test OP",
        "type": "oidc",
        "issuer": setting("issuer"),
        "client_id": setting("client_id"),
        "client_secret": os.environ.get("RECORDING_CLIENT_SECRET", "redacted-on-record"),
        "checks": ["pkce", "state", "nonce"],
    }
    return AuthConfig(secret=SECRET, trust_host=True, providers=[provider])


def email() -> AuthConfig:
    """Sign-in by e-mail link; the in-memory adapter keeps users and sessions."""
    port = int(os.environ.get("RECORDING_SMTP_PORT", "25"))
    sender = SMTPSender("127.0.0.1", port, security="none", from_="App <app@example.com>")
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=MemoryAdapter(),
        providers=[Email(send_verification_request=sender)],
    )
