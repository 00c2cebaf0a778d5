"""Django's request and response ↔ the engine's, on top of :mod:`io_bindings.translate`.

* **Host and scheme** come from Django: ``request.get_host()`` (checked against
  ``ALLOWED_HOSTS``; ``X-Forwarded-Host`` only with ``USE_X_FORWARDED_HOST``) and
  ``request.scheme`` (``SECURE_PROXY_SSL_HEADER``). The forwarding headers are not passed
  on, so the engine sees exactly the origin Django accepted (the engine's own trust rule,
  ``AUTH_TRUST_HOST`` / ``AUTH_URL``, still applies on top).
* **Path**: the percent-encoded path as sent. Under ASGI that is ``scope["raw_path"]``;
  WSGI only has the decoded ``PATH_INFO``, so the path is re-encoded
  (``RAW_URI``/``REQUEST_URI`` are used when the server gives them).
* **Set-Cookie**: Django emits one ``Set-Cookie`` line per entry of the documented
  ``response.cookies`` mapping; each engine cookie goes there as a morsel that prints the
  engine's own line verbatim (attributes and value encoding as Auth.js writes them).
"""

from __future__ import annotations

from collections.abc import Iterable
from http.cookies import Morsel
from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, HttpResponseBase

from sansio_auth import Cookie, Request, Response
from sansio_auth.http import headers_from_pairs

from ..translate import asgi_raw_path, make_request
from ..wsgi import header_pairs
from ..wsgi import raw_path as wsgi_raw_path

_NOT_PASSED = ("x-forwarded-host", "x-forwarded-proto", "host")


def raw_path(request: HttpRequest) -> str:
    """The request's path as sent (percent-encoded): the ASGI ``raw_path``, else the WSGI
    server's raw URI or the re-encoded ``SCRIPT_NAME`` + ``PATH_INFO``."""
    if isinstance(request, ASGIRequest):
        return asgi_raw_path(request.scope)
    return wsgi_raw_path(request.META)


def engine_request(request: HttpRequest, body: bytes = b"") -> Request:
    """The engine's :class:`Request` for ``request``. Raises
    :class:`~io_bindings.translate.BadHost`; Django raises ``DisallowedHost`` first."""
    host = request.get_host()
    headers = headers_from_pairs(header_pairs(request.META))  # Django's META, WSGI or ASGI
    for name in _NOT_PASSED:
        headers.pop(name, None)
    return make_request(
        request.method or "GET",
        scheme=request.scheme or "http",
        host=host,
        raw_path=raw_path(request),
        query=request.META.get("QUERY_STRING", ""),
        headers={**headers, "host": host},
        body=body,
        client=request.META.get("REMOTE_ADDR") or None,
    )


class _RawCookie(Morsel[str]):
    """A ``response.cookies`` entry that prints a ready-made ``Set-Cookie`` value."""

    def __init__(self, line: str) -> None:
        super().__init__()
        self._line = line

    def OutputString(self, attrs: Any = None) -> str:  # noqa: N802 - the stdlib's name
        return self._line

    def output(self, attrs: Any = None, header: str = "Set-Cookie:") -> str:
        return f"{header} {self._line}" if header else self._line


def add_cookies(response: HttpResponseBase, cookies: Iterable[Cookie]) -> None:
    """Add the engine's cookies to ``response``, one ``Set-Cookie`` line each, in order."""
    for cookie in cookies:
        key = f"sansio-auth:{len(response.cookies)}:{cookie.name}"
        dict.__setitem__(response.cookies, key, _RawCookie(cookie.header_value()))


def django_response(response: Response) -> HttpResponse:
    """The engine's :class:`Response` as a Django ``HttpResponse``."""
    http_response = HttpResponse(response.body, status=response.status)
    for name, value in response.headers:
        http_response.headers[name] = value
    if not response.header("content-type"):
        del http_response.headers["Content-Type"]
    add_cookies(http_response, response.cookies)
    return http_response
