"""The app the lock-out e2e tests serve: password accounts and e-mail sign-in links under the
default rate limits, with the counters in the adapter's store.

Configured by the environment of the server process:

* ``LOCKOUT_DATABASE`` — as ``E2E_DATABASE`` of :mod:`db_app` (``sqlite:<path>``,
  ``redis://...?key_prefix=...``, a PostgreSQL DSN);
* ``LOCKOUT_MAIL`` — a file every e-mail is appended to, one JSON line each
  (``{"to", "kind", "url"}``; ``kind`` ``"sign-in"`` for a sign-in link).

JWT sessions; the password provider verifies addresses before the first sign-in.
"""

from __future__ import annotations

import json
import os
from typing import Any

from db_app import adapter_for

from io_bindings.anyio import AuthApp
from io_bindings.wsgi import AuthWSGI
from sansio_auth import AuthConfig
from sansio_auth.providers import Email, Password

SECRET = "lockout-e2e-secret-that-is-long-enough-0123"


def _write(to: str, kind: str, url: str) -> None:
    with open(os.environ["LOCKOUT_MAIL"], "a") as file:
        file.write(json.dumps({"to": to, "kind": kind, "url": url}) + "\n")


def send_email(identifier: str, url: str, message: Any, kind: str) -> None:
    """The password provider's sender."""
    _write(identifier, kind, url)


def send_link(identifier: str, url: str) -> None:
    """The e-mail provider's sender."""
    _write(identifier, "sign-in", url)


def make_config() -> AuthConfig:
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter_for(os.environ["LOCKOUT_DATABASE"]),
        session={"strategy": "jwt"},
        providers=[Password(send_email=send_email), Email(send_verification_request=send_link)],
    )


asgi = AuthApp(make_config())
wsgi = AuthWSGI(make_config())
