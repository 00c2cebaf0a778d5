"""The floor of the HTTP figures: a bare ASGI handler that answers every request with the
same small JSON, served by the same uvicorn as the auth app
(``--factory bench.bare:create_app``); and the crypto ceiling: the same handler that first
decrypts the session cookie, and does nothing else (``bench.bare:create_decrypt_app``)."""

from __future__ import annotations

import time
from typing import Any

from sansio_auth import jwt

from .app import SECRET, SESSION_COOKIE

BODY = b'{"ok":true}'
START = {
    "type": "http.response.start",
    "status": 200,
    "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")],
}
END = {"type": "http.response.body", "body": BODY}


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answer ``{"ok":true}``; nothing else (lifespan refused, as uvicorn allows)."""
    if scope["type"] != "http":
        raise RuntimeError("the bare app serves HTTP only")
    await send(START)
    await send(END)


def create_app() -> Any:
    """The factory uvicorn calls."""
    return app


async def decrypt_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Decrypt the session token of the ``Cookie`` header (alone in it), then answer as
    :func:`app`: no auth at all, the least any server that reads such a session can do."""
    if scope["type"] != "http":
        raise RuntimeError("the bare app serves HTTP only")
    cookie = next(value for name, value in scope["headers"] if name == b"cookie")
    name, _, token = cookie.decode("latin-1").partition("=")
    assert name == SESSION_COOKIE
    jwt.decode(token, SECRET, SESSION_COOKIE, now=time.time())
    await send(START)
    await send(END)


def create_decrypt_app() -> Any:
    """The factory uvicorn calls for the crypto ceiling."""
    return decrypt_app
