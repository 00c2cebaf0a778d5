"""The authorization request: where the browser is sent to sign in at the provider.

Parameters merge as Auth.js merges them, later wins: the provider's
``authorization.params`` and ``authorization_params``, the parameters already on
its authorization URL, then the sign-in request's query string (how a caller passes
``prompt=login``, ``login_hint=...``). Stricter than Auth.js: ``response_type``,
``client_id``, ``redirect_uri`` and the check parameters always come from the
engine, never from a query string, and a plain ``oauth`` provider gets no
``scope`` unless it asks for one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

OIDC_DEFAULT_SCOPE = "openid profile email"
CHECK_PARAMS = ("state", "code_challenge", "code_challenge_method", "nonce")
PROTECTED = frozenset({"response_type", "client_id", "redirect_uri", *CHECK_PARAMS})
NOT_FORWARDED = frozenset({"callbackUrl", "csrfToken"})
"""Sign-in request parameters that belong to this library, not to the provider."""


def param_text(value: Any) -> str | None:
    """A parameter value as text: strings as-is, booleans lower-case, objects as JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return msgspec.json.encode(value).decode()


def request_params(
    endpoint: str,
    *,
    client_id: str,
    redirect_uri: str,
    provider_params: Mapping[str, Any],
    request_query: Mapping[str, str],
) -> dict[str, str]:
    """The authorization request parameters before the checks are added."""
    merged: dict[str, str] = {}
    on_url = dict(parse_qsl(urlsplit(endpoint).query, keep_blank_values=True))
    for source in (provider_params, on_url):
        for key, value in source.items():
            text = param_text(value)
            if text is not None and key not in PROTECTED:
                merged[key] = text
    for key, text in request_query.items():
        if key not in PROTECTED and key not in NOT_FORWARDED:
            merged[key] = text
    return {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, **merged}


def is_form_post(params: Mapping[str, str]) -> bool:
    """Whether the provider will POST the response back (``response_mode=form_post``)."""
    return params.get("response_mode") == "form_post"


def authorization_url(
    endpoint: str,
    params: Mapping[str, str],
    *,
    state: str | None = None,
    code_challenge: str | None = None,
    nonce: str | None = None,
    default_scope: str | None = None,
) -> str:
    """``endpoint`` with ``params``, the check parameters, and ``default_scope`` if none."""
    query = dict(params)
    if state is not None:
        query["state"] = state
    if code_challenge is not None:
        query["code_challenge"] = code_challenge
        query["code_challenge_method"] = "S256"
    if nonce is not None:
        query["nonce"] = nonce
    if default_scope is not None and "scope" not in query:
        query["scope"] = default_scope
    parts = urlsplit(endpoint)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))
