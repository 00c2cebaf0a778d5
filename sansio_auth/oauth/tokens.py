"""The token request (authorization code grant) and the strict reading of its response."""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote_plus, urlencode

import msgspec

from ..errors import TokenResponseError as TokenResponseError
from ..events import OutboundRequest
from ..fetch import ACCEPT_JSON

FORM = ("content-type", "application/x-www-form-urlencoded;charset=UTF-8")
TOKEN_TYPES = frozenset({"bearer", "dpop"})
STRING_FIELDS = ("refresh_token", "id_token", "scope")
TokenSet = dict[str, Any]


def basic_credentials(client_id: str, client_secret: str) -> str:
    """``Basic`` credentials as RFC 6749 §2.3.1 says: each part form-encoded first."""
    pair = f"{quote_plus(client_id, safe='')}:{quote_plus(client_secret, safe='')}"
    return "Basic " + base64.b64encode(pair.encode()).decode()


def token_request(
    endpoint: str,
    *,
    code: str,
    redirect_uri: str,
    code_verifier: str | None,
    client_id: str,
    client_secret: str | None,
    auth_method: str,
    extra: Mapping[str, str] | None = None,
) -> OutboundRequest:
    """``POST endpoint`` exchanging ``code``; client authentication by ``auth_method``."""
    body: dict[str, str] = {"redirect_uri": redirect_uri, "code": code}
    if code_verifier is not None:
        body["code_verifier"] = code_verifier
    body["grant_type"] = "authorization_code"
    body.update({k: v for k, v in (extra or {}).items() if k not in body})
    return authenticated_post(endpoint, body, client_id, client_secret, auth_method)


def authenticated_post(
    endpoint: str,
    body: dict[str, str],
    client_id: str,
    client_secret: str | None,
    auth_method: str,
) -> OutboundRequest:
    """``POST endpoint`` with the form ``body`` and the client authenticated by ``auth_method``."""
    headers = [FORM, ACCEPT_JSON]
    if auth_method == "client_secret_basic":
        headers.append(("authorization", basic_credentials(client_id, client_secret or "")))
    elif auth_method == "client_secret_post":
        body["client_id"] = client_id
        body["client_secret"] = client_secret or ""
    elif auth_method == "none":
        body["client_id"] = client_id
    else:
        raise ValueError(f"unsupported token_endpoint_auth_method {auth_method!r}")
    return OutboundRequest(
        method="POST", url=endpoint, headers=tuple(headers), body=urlencode(body).encode()
    )


def parse_token_response(
    status: int,
    body: bytes,
    *,
    now: float,
    conform: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> TokenSet:
    """The token set of a ``200`` JSON answer, checked; :class:`TokenResponseError` otherwise.

    ``access_token`` and ``token_type`` are required strings, ``token_type`` is
    lower-cased and must be ``bearer`` or ``dpop``; ``expires_in`` must be a
    non-negative number when present (numeric strings are accepted, ``null`` is not, as
    oauth4webapi) and gives ``expires_at``; ``refresh_token``, ``id_token`` and ``scope``
    must be strings when present (``null`` counts as absent). Other members are kept as they came.
    """
    try:
        data = msgspec.json.decode(body)
    except (msgspec.DecodeError, UnicodeDecodeError):
        data = None
    if isinstance(data, dict) and conform is not None:
        data = conform(data)
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        error = data["error"][:200]
        raise TokenResponseError(f"the token endpoint answered `{error}` (HTTP {status})", error)
    if status != 200:
        raise TokenResponseError(f"the token endpoint answered HTTP {status}")
    if not isinstance(data, dict):
        raise TokenResponseError("the token response is not a JSON object")
    return check_token_set(data, now)


def check_token_set(data: Mapping[str, Any], now: float) -> TokenSet:
    """The checked, normalised token set (see :func:`parse_token_response`)."""
    if "expires_in" in data and data["expires_in"] is None:
        raise TokenResponseError("`expires_in` is not a number")
    tokens = {k: v for k, v in data.items() if v is not None}
    access_token = tokens.get("access_token")
    if not isinstance(access_token, str) or not access_token:
        raise TokenResponseError("the token response has no `access_token` string")
    token_type = tokens.get("token_type")
    if not isinstance(token_type, str):
        raise TokenResponseError("the token response has no `token_type` string")
    tokens["token_type"] = token_type.lower()
    if tokens["token_type"] not in TOKEN_TYPES:
        raise TokenResponseError(f"unsupported token_type {token_type[:40]!r}")
    for name in STRING_FIELDS:
        if name in tokens and not isinstance(tokens[name], str):
            raise TokenResponseError(f"the token response's `{name}` is not a string")
    if "expires_in" in tokens:
        expires_in = _seconds(tokens["expires_in"])
        tokens["expires_in"] = expires_in
        tokens["expires_at"] = math.floor(now) + math.floor(expires_in)
    elif type(tokens.get("expires_at", 0)) is not int:
        del tokens["expires_at"]  # only ever a whole number of seconds
    return tokens


def _seconds(value: Any) -> int | float:
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise TokenResponseError("`expires_in` is not a number") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TokenResponseError("`expires_in` is not a number")
    if not math.isfinite(value) or value < 0 or value > 10**12:
        raise TokenResponseError("`expires_in` is out of range")
    return int(value) if float(value).is_integer() else float(value)
