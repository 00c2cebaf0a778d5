"""The floor of the HTTP figures: a bare ASGI handler that answers every request with the
same small JSON, served by the same uvicorn as the auth app
(``--factory bench.bare:create_app``); the crypto row: the same handler that first
decrypts the session cookie on every request, and does nothing else
(``bench.bare:create_decrypt_app``); and
a session read written straight, without the engine (``bench.bare:create_straight_app``),
the same read re-issuing its cookie as ``update_age=0`` does
(``bench.bare:create_straight_reissue_app``), and a CSRF token made straight
(``bench.bare:create_straight_csrf_app``): what routing, the request context, the flow
and the ASGI translation cost is the gap between them and the auth app. The same three
through the engine's contract (``create_contract_app``, ``create_contract_reissue_app``,
``create_contract_csrf_app``: the ASGI request checked and made the engine's ``Request``, the
answer a ``Response`` sent back) are the least any route the engine serves can cost."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from io_bindings.translate import DEFAULT_MAX_BODY_SIZE, asgi_request, send_asgi_response
from sansio_auth import Request, Response, jwt
from sansio_auth.http import Cookie, CookieOptions, http_date, iso_date, parse_cookie_header

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


def create_app() -> App:
    """The factory uvicorn calls."""
    return app


async def decrypt_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Decrypt the session token of the ``Cookie`` header, then answer as :func:`app`: no
    auth at all, the least any server that reads such a session can do."""
    if scope["type"] != "http":
        raise RuntimeError("the bare app serves HTTP only")
    _claims(cookie_header(scope), time.time())
    await send(START)
    await send(END)


SESSION_HEADERS = [(b"content-type", b"application/json"),
                   (b"cache-control", b"private, no-cache, no-store"),
                   (b"expires", b"0"), (b"pragma", b"no-cache")]  # fmt: skip
SHOWN = (("name", "name"), ("email", "email"), ("image", "picture"))
MAX_AGE = 30 * 24 * 60 * 60
ATTRIBUTES = "HttpOnly; SameSite=Lax"
CSRF_COOKIE = "authjs.csrf-token"
App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def _session_body(token: dict[str, Any], expires: float) -> bytes:
    user = {key: token[claim] for key, claim in SHOWN if claim in token}
    return msgspec.json.encode({"user": user, "expires": iso_date(expires)})


def _claims(cookies: str, now: float) -> dict[str, Any]:
    """The claims of the session token in the ``Cookie`` header ``cookies``."""
    value = parse_cookie_header(cookies)[SESSION_COOKIE]
    return jwt.decode(value, SECRET, SESSION_COOKIE, now=now)


def _read(cookies: str, now: float) -> bytes:
    """The body of ``GET /auth/session`` for a valid cookie with the default ``update_age``."""
    token = _claims(cookies, now)
    return _session_body(token, token["iat"] + MAX_AGE)


def _reissue(cookies: str, now: float, entropy: Callable[[int], bytes]) -> tuple[bytes, str, float]:
    """The body of ``GET /auth/session`` with ``update_age=0``, the new token and its expiry."""
    token = _claims(cookies, now)
    value = jwt.encode(token, SECRET, SESSION_COOKIE, now=now, entropy=entropy, max_age=MAX_AGE)
    expires = now + MAX_AGE
    return _session_body(token, expires), value, expires


def _csrf() -> tuple[bytes, str]:
    """The body of ``GET /auth/csrf`` for a first visit and its cookie's value."""
    token = secrets.token_hex(32)
    digest = hashlib.sha256((token + SECRET).encode()).hexdigest()
    return b'{"csrfToken":"%s"}' % token.encode(), f"{token}|{digest}"


def cookie_header(scope: dict[str, Any]) -> str:
    """The request's ``Cookie`` header (the bench always sends one)."""
    cookie: bytes = next(value for name, value in scope["headers"] if name == b"cookie")
    return cookie.decode("latin-1")


async def _send(send: Any, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    headers.append((b"content-length", b"%d" % len(body)))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def straight_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answer ``GET /auth/session`` as the auth app does for a valid cookie with the default
    ``update_age`` (the same body and headers), in straight-line code: no routes, no
    context, no flow, no checks beyond the token's own."""
    if scope["type"] != "http":
        raise RuntimeError("the bare app serves HTTP only")
    await _send(send, [*SESSION_HEADERS], _read(cookie_header(scope), time.time()))


def create_straight_reissue_app(
    clock: Callable[[], float] = time.time, entropy: Callable[[int], bytes] = secrets.token_bytes
) -> App:
    """The factory uvicorn calls for the straight-line re-issue: ``GET /auth/session``
    answered as the auth app does with ``update_age=0`` (the same body, headers and
    ``Set-Cookie`` line; byte for byte with the same ``clock`` and ``entropy``): decrypt,
    re-encrypt with a new ``iat``, ``exp`` and ``jti``, no engine."""

    async def straight_reissue_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise RuntimeError("the bare app serves HTTP only")
        body, value, expires = _reissue(cookie_header(scope), clock(), entropy)
        cookie = f"{SESSION_COOKIE}={value}; Path=/; Expires={http_date(expires)}; {ATTRIBUTES}"
        await _send(send, [*SESSION_HEADERS, (b"set-cookie", cookie.encode())], body)

    return straight_reissue_app


async def straight_csrf_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answer ``GET /auth/csrf`` for a first visit as the auth app does (the same body,
    headers and ``Set-Cookie`` line), in straight-line code: a new token (32 random bytes in
    hex), its SHA-256 with the secret, the cookie line, the JSON; no routes, no context."""
    if scope["type"] != "http":
        raise RuntimeError("the bare app serves HTTP only")
    body, value = _csrf()
    cookie = f"{CSRF_COOKIE}={value.replace('|', '%7C')}; Path=/; {ATTRIBUTES}"
    await _send(send, [*SESSION_HEADERS, (b"set-cookie", cookie.encode())], body)


# -- the same answers through the engine's contract: a Request in, a Response out ------------
#
# What any route served by the engine costs at least, whatever the engine does: the ASGI
# request checked (header limits, Host) and translated into the engine's Request, and the
# Response (its Set-Cookie lines made from Cookie values) translated back.

JSON_NO_CACHE = tuple((k.decode(), v.decode()) for k, v in SESSION_HEADERS)
COOKIE_OPTIONS = CookieOptions()


def _through_the_contract(answer: Callable[[Request], Response]) -> App:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise RuntimeError("the bare app serves HTTP only")
        request = await asgi_request(scope, receive, DEFAULT_MAX_BODY_SIZE)
        await send_asgi_response(
            send, request if isinstance(request, Response) else answer(request)
        )

    return app


def _read_answer(request: Request) -> Response:
    return Response(headers=JSON_NO_CACHE, body=_read(request.header("cookie") or "", time.time()))


def _csrf_answer(request: Request) -> Response:
    body, value = _csrf()
    cookie = Cookie(name=CSRF_COOKIE, value=value, options=COOKIE_OPTIONS)
    return Response(headers=JSON_NO_CACHE, cookies=(cookie,), body=body)


def create_straight_app() -> App:
    """The factory uvicorn calls for the straight-line session read."""
    return straight_app


def create_straight_csrf_app() -> App:
    """The factory uvicorn calls for the straight-line CSRF token."""
    return straight_csrf_app


def create_decrypt_app() -> App:
    """The factory uvicorn calls for the crypto row (a decryption per request)."""
    return decrypt_app


def create_contract_app() -> App:
    """The straight-line session read through the engine's Request and Response."""
    return _through_the_contract(_read_answer)


def create_contract_reissue_app(
    clock: Callable[[], float] = time.time, entropy: Callable[[int], bytes] = secrets.token_bytes
) -> App:
    """The straight-line re-issue through the engine's Request and Response."""

    def reissue_answer(request: Request) -> Response:
        body, value, expires = _reissue(request.header("cookie") or "", clock(), entropy)
        options = msgspec.structs.replace(COOKIE_OPTIONS, expires=expires)
        cookie = Cookie(name=SESSION_COOKIE, value=value, options=options)
        return Response(headers=JSON_NO_CACHE, cookies=(cookie,), body=body)

    return _through_the_contract(reissue_answer)


def create_contract_csrf_app() -> App:
    """The straight-line CSRF token through the engine's Request and Response."""
    return _through_the_contract(_csrf_answer)
