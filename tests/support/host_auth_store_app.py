"""A FastAPI app on ``HostAuth`` with a store, as a user sets one up from the docs: password
accounts, the middleware, ``current_user``; served by the e2e tests of
``tests/io_bindings/starlette/test_fastapi_store_e2e.py``.

Configured by the environment of the server process:

* ``E2E_DATABASE`` — the store, as ``db_app`` reads it (``sqlalchemy:<URL>``,
  ``sqlite:<path>``, ``redis://...``);
* ``E2E_STRATEGY`` — ``jwt`` (revocable) or ``database`` (the default);
* ``E2E_MOUNT`` — where the handlers are mounted (default ``/api/auth``, the base path);
* ``E2E_TABLES`` — ``none``: the SQLAlchemy tables are not made (by default the app makes
  them at start-up, as the docs say).

``POST /seed`` makes the password user ``ada@example.com`` (password :data:`PASSWORD`).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from db_app import adapter_for
from fastapi import Depends, FastAPI

from io_bindings.starlette import HostAuth
from sansio_auth import AuthConfig
from sansio_auth.providers import Password

SECRET = "host-auth-store-e2e-secret-that-is-long-enough-0123"
EMAIL, PASSWORD = "ada@example.com", "a long enough password 1"

adapter = adapter_for(os.environ["E2E_DATABASE"])
strategy = os.environ.get("E2E_STRATEGY", "database")
auth_result = HostAuth(
    AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter,
        providers=[Password(send_email=lambda **_: None)],
        session={"strategy": strategy, "revocation": strategy == "jwt"},
    ),
    env={},
)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    engine = getattr(adapter, "engine", None)
    if engine is not None and os.environ.get("E2E_TABLES") != "none":
        await anyio.to_thread.run_sync(adapter.models.metadata.create_all, engine)
    yield
    await adapter.aclose()


app = FastAPI(lifespan=lifespan)
app.mount(os.environ.get("E2E_MOUNT", "/api/auth"), auth_result.handlers)
app.add_middleware(auth_result.middleware)


@app.post("/seed")
async def seed() -> Any:
    runtime = await auth_result.auth.runtime()
    return await runtime.create_password_user(EMAIL, PASSWORD, verified=True)


@app.get("/me")
async def me(user: Any = Depends(auth_result.current_user)) -> Any:  # noqa: B008 - FastAPI's way
    if isinstance(user, dict):
        return {"kind": "record", "id": user["id"], "email": user["email"]}
    return {"kind": type(user).__name__, "id": str(user.id), "email": user.email}


@app.post("/sign-out-everywhere")
async def sign_out_everywhere(user: Any = Depends(auth_result.current_user)) -> Any:  # noqa: B008
    user_id = user["id"] if isinstance(user, dict) else str(user.id)
    return {"deleted": await auth_result.revoke_sessions(user_id=user_id)}
