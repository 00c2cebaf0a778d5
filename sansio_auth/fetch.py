"""Outbound requests to a provider: build them, send them as actions, read JSON answers.

It sits below both the provider records (whose hooks fetch more of a profile) and the
OAuth client logic in :mod:`sansio_auth.oauth`, which reads those records.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ._flow import Step, send_http
from .errors import DeadlineExceeded, ProviderError
from .events import HTTPResponse, OutboundRequest

ACCEPT_JSON = ("accept", "application/json")


class ProviderResponseError(ProviderError):
    """A provider's answer is unusable: the transport failed, the status or the body is wrong."""


def bearer_request(url: str, access_token: str, *headers: tuple[str, str]) -> OutboundRequest:
    """``GET url`` with ``Authorization: Bearer <access_token>``, asking for JSON."""
    return OutboundRequest(
        method="GET",
        url=url,
        headers=(("authorization", f"Bearer {access_token}"), ACCEPT_JSON, *headers),
    )


def send(request: OutboundRequest, what: str) -> Step[HTTPResponse]:
    """Send ``request``; a transport failure (timeout, size cap, refused) is a response error
    (the binding's deadline stays :class:`~sansio_auth.errors.DeadlineExceeded`).

    The error names the URL as :meth:`OutboundRequest.shown` gives it, without its query and
    any secret in its path: some services take tokens there (WeChat, HubSpot).
    """
    try:
        return (yield from send_http(request))
    except DeadlineExceeded:
        raise
    except Exception as err:
        raise ProviderResponseError(
            f"the {what} request to {request.shown()} failed: {err!r}", hint="provider-unreachable"
        ) from err


def get_json(request: OutboundRequest, what: str) -> Step[Any]:
    """Send ``request`` and return its JSON body; anything but ``200`` + JSON is an error."""
    response = yield from send(request, what)
    if response.status != 200:
        raise ProviderResponseError(f"the {what} endpoint answered HTTP {response.status}")
    return decode_json(response.body, what)


def get_object(request: OutboundRequest, what: str) -> Step[dict[str, Any]]:
    """:func:`get_json` for an answer that must be a JSON object (a profile, most often)."""
    answer = yield from get_json(request, what)
    if not isinstance(answer, dict):
        raise ProviderResponseError(f"the {what} response is not a JSON object")
    return answer


def decode_json(body: bytes, what: str) -> Any:
    """``body`` as JSON, or :class:`ProviderResponseError`."""
    try:
        return msgspec.json.decode(body)
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise ProviderResponseError(f"the {what} response is not valid JSON") from err


def max_age(response: HTTPResponse, default: int, *, low: int, high: int) -> int:
    """Seconds to cache ``response``: its ``Cache-Control: max-age`` clamped, else ``default``."""
    for directive in response.headers.get("cache-control", "").split(","):
        name, _, value = directive.strip().partition("=")
        value = value.strip()
        if name.lower() == "max-age" and value.isascii() and value.isdigit():
            return min(max(int(value), low), high)
    return default
