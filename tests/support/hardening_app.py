"""The app the hardening e2e tests serve (rate limits, deadlines): ``asgi`` (uvicorn,
hypercorn on trio) and ``wsgi`` (the standard library's threaded WSGI server).

Configured by the environment of the server process:

* ``HARDENING_DATABASE`` — where the rate-limit counters are kept: empty for none (the
  runtime's process memory), else as ``E2E_DATABASE`` of :mod:`db_app` (``sqlite:<path>``,
  ``redis://...?key_prefix=...``, a PostgreSQL DSN);
* ``HARDENING_EVENTS`` — a file each ``events.rate_limited`` call is appended to (JSON).

Credentials sign-in, JWT sessions. The ``credentials`` provider's ``authorize`` is async:
user ``slow`` never answers in time, password ``right`` signs in. The ``blocking``
provider's ``authorize`` is sync and sleeps ``seconds`` first. Limits: 3 attempts per
account a minute; deadlines: 0.5 s per callback and adapter call, 3 s per sign-in.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import anyio
from db_app import adapter_for

from io_bindings.anyio import AuthApp
from io_bindings.wsgi import AuthWSGI
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials

SECRET = "hardening-e2e-secret-that-is-long-enough-0123"


async def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """``slow`` sleeps a minute; ``right`` is the password of everyone else."""
    name = str(credentials.get("username"))
    if name == "slow":
        await anyio.sleep(60)
    if credentials.get("password") == "right":
        return {"id": name, "email": f"{name}@example.com"}
    return None


def blocking_authorize(credentials: dict[str, Any]) -> dict[str, Any]:
    """Sleeps ``seconds`` in the calling thread (nothing can interrupt it), then signs in."""
    time.sleep(float(credentials.get("seconds") or 0))
    return {"id": "blocker", "email": "blocker@example.com"}


def record_rate_limited(**message: Any) -> None:
    """Append the event to ``HARDENING_EVENTS``."""
    path = os.environ.get("HARDENING_EVENTS")
    if path:
        with open(path, "a") as file:
            file.write(json.dumps(message) + "\n")


def make_config() -> AuthConfig:
    database = os.environ.get("HARDENING_DATABASE", "")
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter_for(database) if database else None,
        session={"strategy": "jwt"},
        providers=[
            Credentials(authorize=authorize),
            Credentials(id="blocking", name="Blocking", authorize=blocking_authorize),
        ],
        rate_limits={"credentials_per_account": (3, 60)},
        deadlines={"callback": 0.5, "adapter": 0.5, "sign_in": 3},
        events={"rate_limited": record_rate_limited},
    )


asgi = AuthApp(make_config())
wsgi = AuthWSGI(make_config())
