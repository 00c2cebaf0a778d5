"""Server-side sign-in, sign-out and session update, as requests to the engine's own routes.

A framework adapter performs these for its ``sign_in``/``sign_out``/``unstable_update``
helpers "as the browser": it gets a CSRF token (``GET <base>/csrf``), posts the form this
module describes with ``X-Auth-Return-Redirect: 1`` and the browser's cookies, keeps the
cookies the engine sets, and reads the answer with :func:`answer_url`. Pure: no IO.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from . import errors
from .errors import AuthError, CredentialsSignin
from .http import Response
from .settings import Settings

RETURN_REDIRECT = {"x-auth-return-redirect": "1"}
"""The header that makes the engine answer ``200 {"url": ...}`` instead of a redirect."""


def sign_in_route(settings: Settings, provider_id: str | None) -> str | None:
    """The route (under ``base_path``) a server-side sign-in with ``provider_id`` posts to:
    ``/callback/<id>`` for a credentials provider, ``/signin/<id>`` for the others; ``None``
    when the provider is not given or not configured (the user goes to the sign-in page)."""
    provider = settings.providers_by_id.get(provider_id) if provider_id else None
    if provider is None:
        return None
    action = "callback" if provider.type == "credentials" else "signin"
    return f"/{action}/{quote(provider.id, safe='')}"


def sign_in_page_url(origin: str, settings: Settings, callback_url: str) -> str:
    """The engine's sign-in page on ``origin``, coming back to ``callback_url``."""
    query = urlencode({"callbackUrl": callback_url})
    return f"{origin}{settings.base_path}/signin?{query}"


def action_form(fields: Mapping[str, Any], *, csrf_token: str, callback_url: str) -> bytes:
    """The urlencoded body of an action: the user's ``fields``, the token and the callback URL."""
    form = {k: str(v) for k, v in fields.items() if k not in ("csrfToken", "callbackUrl")}
    form["csrfToken"] = csrf_token
    form["callbackUrl"] = callback_url
    return urlencode(form).encode()


def answer_url(response: Response, settings: Settings) -> str:
    """The URL an action answered (``200 {"url": ...}``); raises the :class:`AuthError`
    the answer reports (``?error=<type>[&code=]`` on the sign-in or error page, e.g.
    :class:`CredentialsSignin` with its ``code``), or :class:`AuthError` when the engine
    did not answer with a URL."""
    body: Any = response.json() if response.status == 200 and response.body else None
    url = body.get("url") if isinstance(body, dict) else None
    if not isinstance(url, str):
        raise AuthError(f"the engine answered the action with status {response.status}")
    error = error_in(url, settings)
    if error is not None:
        raise error
    return url


def error_in(url: str, settings: Settings) -> AuthError | None:
    """The error a redirect to the sign-in or error page reports, if any."""
    parts = urlsplit(url)
    pages = {
        f"{settings.base_path}/signin",
        f"{settings.base_path}/error",
        *(urlsplit(p).path for p in (settings.pages.sign_in, settings.pages.error) if p),
    }
    if parts.path not in pages:
        return None
    query = dict(parse_qsl(parts.query))
    kind = query.get("error")
    if not kind:
        return None
    cls = _ERROR_TYPES.get(kind, AuthError)
    if issubclass(cls, CredentialsSignin):
        return cls(code=query.get("code") or None)
    return cls(f"sign-in failed: {kind}") if cls is AuthError else cls()


def _error_types() -> dict[str, type[AuthError]]:
    found: dict[str, type[AuthError]] = {}
    for value in vars(errors).values():
        if isinstance(value, type) and issubclass(value, AuthError):
            found.setdefault(value.type, value)
    return found


_ERROR_TYPES = _error_types()
