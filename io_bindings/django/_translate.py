"""Django's request and response ↔ the engine's, on :mod:`io_bindings.translate`: the host
and scheme Django accepted (forwarding headers not passed on), the path as sent, a
``multipart/form-data`` form as the urlencoded one the engine reads, each engine cookie as
one ``Set-Cookie`` line (a ``response.cookies`` entry under its name, so a cookie jar fed
from it has it); why, in ``docs/adapters/django.md``."""

from __future__ import annotations

from collections.abc import Iterable
from http.cookies import Morsel
from typing import Any
from urllib.parse import urlencode

import msgspec
from django.core.exceptions import SuspiciousOperation
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.http.multipartparser import MultiPartParserError
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.utils.translation import get_language

from sansio_auth import Cookie, Request, Response

from ..translate import asgi_raw_path
from ..wsgi import raw_path as wsgi_raw_path
from ..wsgi import request_from_environ

_NOT_PASSED = ("HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PROTO")
_URLENCODED = "application/x-www-form-urlencoded"


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
    if body and request.content_type == "multipart/form-data":
        body = _as_urlencoded(request)
        environ["CONTENT_TYPE"], environ["CONTENT_LENGTH"] = _URLENCODED, str(len(body))
    return request_from_environ(environ, body, getattr(request, "LANGUAGE_CODE", get_language()))


def _as_urlencoded(request: HttpRequest) -> bytes:
    """The text fields of a ``multipart/form-data`` body (Django's test client posts forms
    so), as the engine reads forms; none when Django refuses the body."""
    try:
        fields = [(name, value) for name, values in request.POST.lists() for value in values]
    except (MultiPartParserError, SuspiciousOperation):
        return b""
    return urlencode(fields).encode()


class _RawCookie(Morsel[str]):
    """A ``response.cookies`` entry that prints the engine's ``Set-Cookie`` line as it is,
    and holds the cookie's name and value as sent back (``key``, ``coded_value``), so that a
    cookie jar fed from ``response.cookies`` (Django's test client's) has the cookie."""

    def __init__(self, cookie: Cookie) -> None:
        super().__init__()
        self._line = cookie.header_value()
        sent = self._line.split(";", 1)[0].split("=", 1)[1]
        self.set(cookie.name, cookie.value, sent)
        self._made = (self.key, self.value, dict(self))

    def OutputString(self, attrs: Any = None) -> str:  # noqa: N802 - the stdlib's name
        if (self.key, self.value, dict(self)) != self._made:  # changed since: Django's line
            return super().OutputString(attrs)
        return self._line

    def output(self, attrs: Any = None, header: str = "Set-Cookie:") -> str:
        line = self.OutputString(attrs)
        return f"{header} {line}" if header else line


def cookie_morsel(cookie: Cookie) -> Morsel[str]:
    """The engine's ``cookie`` as an entry of a ``SimpleCookie`` (a response's or a jar's)."""
    return _RawCookie(cookie)


def add_cookies(response: HttpResponseBase, cookies: Iterable[Cookie]) -> None:
    """Add the engine's cookies to ``response``, one ``Set-Cookie`` line each, in order:
    under the cookie's name (a jar fed from ``response.cookies`` keeps it under that name),
    or, when the response sets that name already, under a key of its own."""
    for cookie in cookies:
        key = cookie.name
        if key in response.cookies:
            key = f"sansio-auth:{len(response.cookies)}:{cookie.name}"
        dict.__setitem__(response.cookies, key, _RawCookie(cookie))


TEMPLATE_DIRECTORY = "sansio_auth"
"""Where a project's own templates of the built-in pages go: ``sansio_auth/<page name>.html``
(``sansio_auth/signin.html``, ...), as django-allauth's ``account/login.html``."""


def with_template(request: HttpRequest, response: Response) -> Response:
    """``response`` with its built-in page drawn by the project's template of that page
    (``sansio_auth/<name>.html``, found by Django's template loaders), when there is one: the
    page's context, ``page`` (its name) and the request's context processors; status,
    headers and cookies stay the engine's."""
    page = response.page
    if page is None:
        return response
    try:
        template = get_template(f"{TEMPLATE_DIRECTORY}/{page.name}.html")
    except TemplateDoesNotExist:
        return response
    body = template.render({**page.context, "page": page.name}, request)
    return msgspec.structs.replace(response, body=body.encode())


def django_response(response: Response) -> HttpResponse:
    """The engine's :class:`Response` as a Django ``HttpResponse``."""
    http_response = HttpResponse(response.body, status=response.status)
    for name, value in response.headers:
        http_response.headers[name] = value
    if not response.header("content-type"):
        del http_response.headers["Content-Type"]
    add_cookies(http_response, response.cookies)
    return http_response
