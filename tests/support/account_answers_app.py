"""The app the account answers e2e tests serve: ``uvicorn account_answers_app:app``.

Password accounts whose sign-up signs in at once (no address verification), two-factor for
password sign-ins, JWT sessions. Configured by the environment of the server process:

* ``ACCOUNTS_DATABASE`` — the store, as ``E2E_DATABASE`` of :mod:`db_app` (``sqlite:<path>``,
  ``redis://...?key_prefix=...``, a PostgreSQL DSN);
* ``ACCOUNTS_MAIL`` — a file each account e-mail is appended to, one JSON object a line:
  ``{"to", "kind", "url"}``.
"""

from __future__ import annotations

import json
import os
from typing import Any

from db_app import adapter_for

from io_bindings.anyio import AuthApp
from sansio_auth import AuthConfig
from sansio_auth.passwords import Argon2Params
from sansio_auth.providers import Password

SECRET = "account-answers-e2e-secret-long-enough-0123"


def send_email(identifier: str, url: str, kind: str, message: Any) -> None:
    """Append the e-mail (who, what kind, its link; not ``message``) to ``ACCOUNTS_MAIL``."""
    with open(os.environ["ACCOUNTS_MAIL"], "a") as file:
        file.write(json.dumps({"to": identifier, "kind": kind, "url": url}) + "\n")


def make_config() -> AuthConfig:
    password: Any = Password(
        send_email=send_email,
        require_verified_email=False,
        argon2=Argon2Params(memory_cost=1024, time_cost=1),  # quick: the tests hash often
    )
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter_for(os.environ["ACCOUNTS_DATABASE"]),
        session={"strategy": "jwt"},
        providers=[password],
        two_factor={},
    )


app = AuthApp(make_config())
