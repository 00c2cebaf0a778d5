"""Auth.js's ``getToken`` (authjs-facts §4.6): the session token of a request, for API
servers whose clients send it themselves.

The token is read from the session cookie (chunks joined, as a session read does), else
from ``Authorization: Bearer <token>`` (percent-encoded, as Auth.js's client sends it; a
malformed encoding means no token). Decoding uses the cookie's name as the salt and every
secret in turn (rotation), exactly as the session cookie is decoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import jwt
from .cookies import read_chunked
from .errors import MissingSecretError
from .http import Request, decode_uri_component, parse_cookie_header

SESSION_COOKIE = "authjs.session-token"
SECURE_SESSION_COOKIE = "__Secure-authjs.session-token"


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <percent-encoded token>`` header, or ``None``
    (another scheme, no token, or a malformed percent-encoding)."""
    if not authorization:
        return None
    scheme, _, rest = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return None
    encoded = rest.split(" ")[0]
    try:
        return decode_uri_component(encoded) or None
    except ValueError:
        return None


def find_session_token(request: Request, cookie_name: str) -> str | None:
    """The raw session token of ``request``: its session cookie (chunked or not), else its
    bearer token; ``None`` when it has neither."""
    cookies = parse_cookie_header(request.header("cookie"))
    value, _ = read_chunked(cookies, cookie_name)
    return value or bearer_token(request.header("authorization"))


def get_token(
    request: Request,
    *,
    secret: str | Sequence[str] | None,
    now: float,
    raw: bool = False,
    salt: str | None = None,
    secure_cookie: bool = False,
    cookie_name: str | None = None,
) -> dict[str, Any] | str | None:
    """The decoded session token of ``request`` (or with ``raw``, the token as sent), or
    ``None`` when there is none or it does not decode.

    ``cookie_name`` defaults by ``secure_cookie`` (``__Secure-authjs.session-token`` or
    ``authjs.session-token``), ``salt`` to the cookie name. ``secret`` may be a list (the
    newest first); none raises :class:`~sansio_auth.errors.MissingSecretError` (unless
    ``raw``). ``now`` is the time the token's ``exp`` is checked against.
    """
    name = cookie_name or (SECURE_SESSION_COOKIE if secure_cookie else SESSION_COOKIE)
    token = find_session_token(request, name)
    if token is None or raw:
        return token
    secrets = [secret] if isinstance(secret, str) else list(secret or ())
    secrets = [s for s in secrets if s]
    if not secrets:
        raise MissingSecretError("Must pass `secret` if not set to JWT getToken()")
    try:
        return jwt.decode(token, secrets, salt if salt is not None else name, now=now)
    except jwt.InvalidToken:
        return None
