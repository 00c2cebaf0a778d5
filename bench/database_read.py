"""The ceiling of the database rows (``--factory bench.database_read:create_app``): the
adapter of :func:`bench.app.database_adapter` (the same environment as the auth app's), its
session read alone on the same pool, answered with the auth app's body; no engine. What
the engine's flow for a database session costs is the gap between it and the auth app."""

from __future__ import annotations

import time
from typing import Any

import msgspec

from sansio_auth.http import iso_date, parse_cookie_header

from .app import SESSION_COOKIE, database_adapter
from .bare import SESSION_HEADERS, cookie_header

SHOWN = ("name", "email", "image")


def create_app() -> Any:
    """The factory uvicorn calls."""
    adapter = database_adapter()

    async def database_read_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise RuntimeError("the bare app serves HTTP only")
        token = parse_cookie_header(cookie_header(scope))[SESSION_COOKIE]
        found = await adapter.get_session_and_user(token)
        expires = None if found is None else found["session"]["expires"].timestamp()
        if found is None or expires is None or expires < time.time():
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        user = {key: found["user"].get(key) for key in SHOWN}
        user["id"] = str(found["user"]["id"])  # the session names its stored user
        body = msgspec.json.encode({"user": user, "expires": iso_date(expires)})
        headers = [*SESSION_HEADERS, (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return database_read_app
