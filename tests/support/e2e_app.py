"""The app the end-to-end tests serve: ``uvicorn e2e_app:app`` or ``hypercorn -k trio e2e_app:app``.

Three credentials providers (an async ``authorize``, a sync one, one that raises);
``jwt``/``session`` callbacks that carry a ``nickname`` set by the session update and
raise for one user (``crash``) and one nickname (``boom``); a ``sign_in`` callback
that raises for one user (``mallory``); a ``sign_out`` event that always raises
(sign-out must still work).
"""

from __future__ import annotations

from typing import Any

import anyio.lowlevel

from io_bindings.anyio import AuthApp
from sansio_auth import AuthConfig, Callbacks, CredentialsSignin, Events
from sansio_auth.providers import Credentials

SECRET = "e2e-secret-that-is-long-enough-0123456789"
MAX_BODY_SIZE = 8 * 1024
USERS = {
    "alice": ("wonderland", {"id": 1, "name": "Alice", "email": "alice@example.com"}),
    "mallory": ("x", {"id": 66, "name": "Mallory", "email": "mallory@example.com"}),
    "crash": ("x", {"id": 99, "name": "Crash", "email": "crash@example.com"}),
}
FIELDS = {"username": {"label": "Username"}, "password": {"label": "Password", "type": "password"}}


async def authorize_async(credentials: dict[str, Any]) -> dict[str, Any] | None:
    """Alice and Mallory; ``locked`` is refused with its own code."""
    await anyio.lowlevel.checkpoint()  # a real await, on asyncio and on trio
    username = credentials.get("username", "")
    if username == "locked":
        raise CredentialsSignin("account locked", code="locked")
    password, user = USERS.get(username, (None, None))
    return user if password is not None and credentials.get("password") == password else None


def authorize_sync(credentials: dict[str, Any], request: Any) -> dict[str, Any] | None:
    """Bob, checked by a plain function that also reads the request."""
    assert request.method == "POST"
    if (credentials.get("username"), credentials.get("password")) == ("bob", "builder"):
        return {"id": "b-2", "name": "Bob", "email": "bob@example.com"}
    return None


def authorize_broken(credentials: dict[str, Any]) -> None:
    """Fails like a user database that is down."""
    raise RuntimeError("user database is on fire")


def sign_in(user: dict[str, Any]) -> bool:
    """Raises for Mallory (becomes AccessDenied), allows everyone else."""
    if user["name"] == "Mallory":
        raise PermissionError("Mallory is banned")
    return True


async def jwt(
    token: dict[str, Any], user: Any, trigger: str | None, session: Any
) -> dict[str, Any]:
    """On the update trigger, keep the posted ``nickname`` in the token; raise for Crash."""
    if user is not None and user["name"] == "Crash":
        raise LookupError("token store unreachable")
    if trigger == "update" and isinstance(session, dict) and "nickname" in session:
        token["nickname"] = session["nickname"]
    return token


def session_callback(session: dict[str, Any], token: dict[str, Any]) -> dict[str, Any]:
    """Expose the user id and the nickname; the nickname ``boom`` makes it raise."""
    if token.get("nickname") == "boom":
        raise ValueError("session store unreachable")
    return {**session, "user_id": token.get("sub"), "nickname": token.get("nickname")}


async def sign_out_event(token: Any) -> None:
    """An audit hook that is down: its failure is logged, sign-out goes on."""
    raise RuntimeError("audit log unavailable")


config = AuthConfig(
    secret=SECRET,
    trust_host=True,
    providers=[
        Credentials(id="credentials", name="Password", authorize=authorize_async,
                    credentials=FIELDS),
        Credentials(id="sync-login", name="Sync", authorize=authorize_sync, credentials=FIELDS),
        Credentials(id="broken", name="Broken", authorize=authorize_broken, credentials=FIELDS),
    ],
    callbacks=Callbacks(sign_in=sign_in, jwt=jwt, session=session_callback),
    events=Events(sign_out=sign_out_event),
    # one module of tests signs the same accounts in and out dozens of times from one
    # address; the limits themselves are tested with hardening_app
    rate_limits={"enabled": False},
)  # fmt: skip
app = AuthApp(config, max_body_size=MAX_BODY_SIZE)
