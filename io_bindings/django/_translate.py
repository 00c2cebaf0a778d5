"""Django's request and response ↔ the engine's, on :mod:`io_bindings.translate`: the host
and scheme Django accepted (forwarding headers not passed on), the path as sent, each engine
cookie as one ``Set-Cookie`` line; why, in ``docs/adapters/django.md``."""

from __future__ import annotations

from collections.abc import Iterable
from http.cookies import Morsel
from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.translation import get_language

from sansio_auth import Cookie, Request, Response

from ..translate import asgi_raw_path
from ..wsgi import raw_path as wsgi_raw_path
from ..wsgi import request_from_environ

_NOT_PASSED = ("HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PROTO")


def raw_path(request: HttpRequest) -> str:
    """The request's path as sent (percent-encoded): the ASGI ``raw_path``, else the WSGI
    server's raw URI or the re-encoded ``SCRIPT_NAME`` + ``PATH_INFO``."""
    if isinstance(request, ASGIRequest):
        return asgi_raw_path(request.scope)
    return wsgi_raw_path(request.META)


def engine_request(request: HttpRequest, body: bytes = b"") -> Request:
    """The engine's :class:`Request` for ``request`` (Django's ``META`` is a WSGI environ,
    under ASGI too), with the host and scheme Django accepted. Raises
    :class:`~io_bindings.translate.BadHost`; Django raises ``DisallowedHost`` first."""
    environ = {**request.META, "HTTP_HOST": request.get_host(), "RAW_URI": raw_path(request)}
    environ["wsgi.url_scheme"], environ["REQUEST_METHOD"] = request.scheme, request.method
    for name in _NOT_PASSED:
        environ.pop(name, None)
    return request_from_environ(environ, body, getattr(request, "LANGUAGE_CODE", get_language()))


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
