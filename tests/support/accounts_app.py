"""The app the account-security e2e tests serve (``tests/io_bindings/test_accounts_e2e.py``):
password accounts, e-mail sign-in links, a passkey provider, two-factor with e-mailed codes,
on revocable JWT sessions or database sessions; and the demo OpenID Provider under ``/op``,
configured twice (``demo-op`` and ``demo-op-mobile``: two clients of one issuer).

Configured by the environment of the server process:

* ``E2E_DATABASE`` — the store, as ``db_app`` reads it (``sqlite:<path>``, ``redis://...``);
* ``ACCOUNTS_STRATEGY`` — ``jwt`` (with ``revocation``, the default) or ``database``;
* ``ACCOUNTS_MAILS`` — a file every e-mail is appended to, one JSON line each
  (``to``, ``kind``, ``url``, ``token``: ``kind`` is ``sign-in`` for a sign-in link);
* ``ACCOUNTS_FRESH_AGE`` — ``session.fresh_age`` in seconds (default 600);
* ``ACCOUNTS_MAX_FAILURES`` — ``two_factor.max_failures`` (default 100);
* ``ACCOUNTS_ORIGIN`` — where the server listens (``http://127.0.0.1:<port>``), the OP's
  issuer's origin.
"""

from __future__ import annotations

import json
import os
from typing import Any

from db_app import adapter_for

from io_bindings.anyio import AuthApp
from io_bindings.demo_op import DemoOP
from sansio_auth import AuthConfig
from sansio_auth.providers import Email, Passkey, Password

SECRET = "accounts-e2e-secret-that-is-long-enough-0123456789"


def _mail(to: str, kind: str, url: str, token: str | None) -> None:
    with open(os.environ["ACCOUNTS_MAILS"], "a") as file:
        file.write(json.dumps({"to": to, "kind": kind, "url": url, "token": token}) + "\n")


def send_email(identifier: str, url: str, kind: str, token: Any, message: Any) -> None:
    """The password provider's sender: every account e-mail goes to the mail file."""
    _mail(identifier, kind, url, token)


def send_link(identifier: str, url: str, token: str) -> None:
    """The e-mail provider's sender: every sign-in link goes to the mail file."""
    _mail(identifier, "sign-in", url, token)


def config() -> AuthConfig:
    strategy = os.environ.get("ACCOUNTS_STRATEGY", "jwt")
    session: dict[str, Any] = {
        "strategy": strategy,
        "fresh_age": int(os.environ.get("ACCOUNTS_FRESH_AGE", "600")),
    }
    if strategy == "jwt":
        session["revocation"] = True
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter_for(os.environ["E2E_DATABASE"]),
        providers=[
            Password(send_email=send_email),
            Email(send_verification_request=send_link),
            Passkey(),
            OP.provider(),
            {**OP.provider(), "id": "demo-op-mobile", "name": "the demo provider's app"},
        ],
        session=session,
        two_factor={
            "email_code": True,
            "trust_device_days": 0,
            "max_failures": int(os.environ.get("ACCOUNTS_MAX_FAILURES", "100")),
        },
        experimental={"enable_webauthn": True},
    )


OP = DemoOP(os.environ["ACCOUNTS_ORIGIN"] + "/op")
app = AuthApp(config(), app=OP)
