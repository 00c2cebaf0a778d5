"""What the hooks of several services share: small rewrites of a request or an answer.

Each is a plain function a service's hook calls (``services/<id>.py``), so one quirk seen
at several services is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

from ..events import OutboundRequest
from .oauth import merge_options


def bearer_token_type(body: dict[str, Any]) -> dict[str, Any]:
    """A ``token_response`` hook: a successful answer without ``token_type`` (VK, Threads,
    WeChat, ClickUp, Mailchimp) carries a bearer token (RFC 6749 §5.1 requires the field)."""
    if isinstance(body.get("access_token"), str) and "token_type" not in body:
        return {**body, "token_type": "bearer"}
    return body


def scope_text(body: dict[str, Any]) -> dict[str, Any]:
    """``scope`` as OAuth 2.0 has it: an array (Twitch, Medium) joined with spaces, any other
    non-text value dropped."""
    scope = body.get("scope")
    if isinstance(scope, list):
        return {**body, "scope": " ".join(str(item) for item in scope)}
    if "scope" in body and not isinstance(scope, str):
        return {key: value for key, value in body.items() if key != "scope"}
    return body


def scope_keyword(options: dict[str, Any]) -> dict[str, Any]:
    """An ``options`` hook: the factory's ``scope=`` keyword (as in Auth.js: Dribbble, Azure
    DevOps) is the authorization request's ``scope``."""
    scope = options.pop("scope", None)
    if scope is None:
        return options
    if not isinstance(scope, str):
        raise TypeError(f"`scope` must be a space-separated string, got {type(scope).__name__}")
    options["authorization"] = merge_options(
        options.get("authorization"), {"params": {"scope": scope}}
    )
    return options


def with_params(url: str, params: Mapping[str, str]) -> str:
    """``url`` with ``params`` set in its query (replacing parameters of the same name)."""
    parts = urlsplit(url)
    query = {**dict(parse_qsl(parts.query, keep_blank_values=True)), **params}
    return urlunsplit(parts._replace(query=urlencode(query)))


def with_form(request: OutboundRequest, fields: Mapping[str, str]) -> OutboundRequest:
    """A form ``request`` with ``fields`` added to its body (replacing fields of that name)."""
    form = {**dict(parse_qsl(request.body.decode(), keep_blank_values=True)), **fields}
    return msgspec.structs.replace(request, body=urlencode(form).encode())


def base_url_option(
    option: str, paths: Mapping[str, str]
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """An ``options`` hook: the factory keyword ``option`` (a base URL) puts each endpoint of
    ``paths`` under it (GitLab's ``base_url``, Webex's ``api_base_url``)."""

    def rebase(options: dict[str, Any]) -> dict[str, Any]:
        base = options.pop(option, None)
        if base is None:
            return options
        for key, path in paths.items():
            url = str(base).rstrip("/") + path
            options[key] = merge_options({"url": url}, options.get(key))
        return options

    return rebase
