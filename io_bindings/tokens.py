"""``get_token``: Auth.js's ``getToken`` for any Python web framework's request.

>>> from io_bindings import get_token
>>> claims = get_token(request)                  # the session cookie, else `Authorization: Bearer`
>>> raw = get_token(request, raw=True)           # the token as sent

It decodes with ``AUTH_SECRET`` (or ``secret=``) and the defaults of Auth.js's own, so it
reads tokens made by Auth.js and by this library alike. To honour a configuration
(custom ``jwt.decode``, ``use_secure_cookies``, revocation), use the runtime's
:meth:`io_bindings.anyio.Auth.get_token` instead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from sansio_auth import Request
from sansio_auth.http import headers_from_pairs
from sansio_auth.session_token import get_token as _get_token
from sansio_auth.settings import find_secrets

__all__ = ["get_token"]


def get_token(
    request: Any,
    *,
    secret: str | Sequence[str] | None = None,
    raw: bool = False,
    salt: str | None = None,
    secure_cookie: bool = False,
    cookie_name: str | None = None,
) -> Any:
    """The decoded session token of ``request`` (a ``dict``), the token as sent (``raw``), or
    ``None`` when it has none or it does not decode (a wrong secret, expired, tampered).

    ``request`` is the engine's :class:`~sansio_auth.Request`, a framework's request (any
    object with ``headers``: Starlette, FastAPI, aiohttp, Django, Flask), an ASGI scope or a
    WSGI environ. ``secret`` defaults to ``AUTH_SECRET`` (``AUTH_SECRET_1``... for rotation;
    a list, newest first, works too); ``cookie_name`` to ``authjs.session-token``
    (``__Secure-authjs.session-token`` with ``secure_cookie``); ``salt`` to the cookie name.
    """
    secrets = None if raw and secret is None else find_secrets(secret, os.environ)
    return _get_token(
        _as_request(request),
        secret=secrets,
        now=time.time(),
        raw=raw,
        salt=salt,
        secure_cookie=secure_cookie,
        cookie_name=cookie_name,
    )


_READ = ("cookie", "authorization")


def _as_request(request: Any) -> Request:
    """The ``Cookie`` and ``Authorization`` headers of ``request`` as an engine request."""
    if isinstance(request, Request):
        return request
    headers: dict[str, str] = {}
    found = getattr(request, "headers", None)  # before Mapping: aiohttp's request is one
    if found is not None:
        for name in _READ:
            value = found.get(name) or found.get(name.title())
            if value:
                headers[name] = str(value)
    elif isinstance(request, Mapping):
        if request.get("type") in ("http", "websocket"):  # an ASGI scope
            pairs = headers_from_pairs(request.get("headers", ()))
            headers = {k: v for k, v in pairs.items() if k in _READ}
        else:  # a WSGI environ
            for name in _READ:
                value = request.get(f"HTTP_{name.upper()}")
                if value:
                    headers[name] = value
    else:
        raise TypeError(f"get_token needs a request with headers, not {type(request)!r}")
    return Request(method="GET", url="http://localhost/", headers=headers)
