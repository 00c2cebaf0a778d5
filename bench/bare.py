"""The floor of the HTTP figures: a bare ASGI handler that answers every request with the
same small JSON, served by the same uvicorn as the auth app
(``--factory bench.bare:create_app``); the crypto ceiling: the same handler that first
decrypts the session cookie, and does nothing else (``bench.bare:create_decrypt_app``); and
a session read written straight, without the engine (``bench.bare:create_straight_app``),
the same read re-issuing its cookie as ``update_age=0`` does
(``bench.bare:create_straight_reissue_app``), and a CSRF token made straight
(``bench.bare:create_straight_csrf_app``): what routing, the request context, the flow
and the ASGI translation cost is the gap between them and the auth app."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from typing import Any

import msgspec

from sansio_auth import jwt
from sansio_auth.http import http_date, iso_date, parse_cookie_header

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


def _session_token(scope: dict[str, Any]) -> str:
    cookie = next(value for name, value in scope["headers"] if name == b"cookie")
    return parse_cookie_header(cookie.decode("latin-1"))[SESSION_COOKIE]


async def decrypt_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Decrypt the session token of the ``Cookie`` header, then answer as :func:`app`: no
    auth at all, the least any server that reads such a session can do."""
    if scope["type"] != "http":
        raise RuntimeError("the bare app serves HTTP only")
    jwt.decode(_session_token(scope), SECRET, SESSION_COOKIE, now=time.time())
    await send(START)
    await send(END)


SESSION_HEADERS = [(b"content-type", b"application/json"),
                   (b"cache-control", b"private, no-cache, no-store"),
                   (b"expires", b"0"), (b"pragma", b"no-cache")]  # fmt: skip
SHOWN = (("name", "name"), ("email", "email"), ("image", "picture"))
MAX_AGE = 30 * 24 * 60 * 60
ATTRIBUTES = "HttpOnly; SameSite=Lax"


async def straight_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answer ``GET /auth/session`` as the auth app does for a valid cookie with the default
    ``update_age`` (the same body and headers), in straight-line code: no routes, no
    context, no flow, no checks beyond the token's own."""
    if scope["type"] != "http":
        raise RuntimeError("the bare app serves HTTP only")
    token = jwt.decode(_session_token(scope), SECRET, SESSION_COOKIE, now=time.time())
    user = {key: token[claim] for key, claim in SHOWN if claim in token}
    body = msgspec.json.encode({"user": user, "expires": iso_date(token["iat"] + MAX_AGE)})
    headers = [*SESSION_HEADERS, (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def create_straight_reissue_app(
    clock: Callable[[], float] = time.time, entropy: Callable[[int], bytes] = secrets.token_bytes
) -> Any:
    """The factory uvicorn calls for the straight-line re-issue: ``GET /auth/session``
    answered as the auth app does with ``update_age=0`` (the same body, headers and
    ``Set-Cookie`` line; byte for byte with the same ``clock`` and ``entropy``): decrypt,
    re-encrypt with a new ``iat``, ``exp`` and ``jti``, no engine."""

    async def straight_reissue_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise RuntimeError("the bare app serves HTTP only")
        now = clock()
        token = jwt.decode(_session_token(scope), SECRET, SESSION_COOKIE, now=now)
        value = jwt.encode(token, SECRET, SESSION_COOKIE, now=now, entropy=entropy, max_age=MAX_AGE)
        expires = now + MAX_AGE
        user = {key: token[claim] for key, claim in SHOWN if claim in token}
        body = msgspec.json.encode({"user": user, "expires": iso_date(expires)})
        cookie = f"{SESSION_COOKIE}={value}; Path=/; Expires={http_date(expires)}; {ATTRIBUTES}"
        headers = [*SESSION_HEADERS, (b"set-cookie", cookie.encode()),
                   (b"content-length", b"%d" % len(body))]  # fmt: skip
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return straight_reissue_app


CSRF_COOKIE = "authjs.csrf-token"


async def straight_csrf_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answer ``GET /auth/csrf`` for a first visit as the auth app does (the same body,
    headers and ``Set-Cookie`` line), in straight-line code: a new token (32 random bytes in
    hex), its SHA-256 with the secret, the cookie line, the JSON; no routes, no context."""
    if scope["type"] != "http":
        raise RuntimeError("the bare app serves HTTP only")
    token = secrets.token_hex(32)
    digest = hashlib.sha256((token + SECRET).encode()).hexdigest()
    cookie = f"{CSRF_COOKIE}={token}%7C{digest}; Path=/; {ATTRIBUTES}"
    body = b'{"csrfToken":"%s"}' % token.encode()
    headers = [*SESSION_HEADERS, (b"set-cookie", cookie.encode()),
               (b"content-length", b"%d" % len(body))]  # fmt: skip
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def create_straight_csrf_app() -> Any:
    """The factory uvicorn calls for the straight-line CSRF token."""
    return straight_csrf_app


def create_straight_app() -> Any:
    """The factory uvicorn calls for the straight-line session read."""
    return straight_app


def create_decrypt_app() -> Any:
    """The factory uvicorn calls for the crypto ceiling."""
    return decrypt_app
