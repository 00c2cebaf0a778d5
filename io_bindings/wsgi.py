"""The WSGI binding: serve the auth routes from any WSGI server (Flask, Bottle, Falcon,
Django under WSGI), on the sync runtime (:class:`io_bindings.sync.SyncAuth`).

>>> from io_bindings.wsgi import AuthWSGI
>>> auth = AuthWSGI(config, flask_app.wsgi_app)   # routes under base_path, the rest to Flask
>>> flask_app.wsgi_app = auth
>>> auth.session(flask.request.environ).data      # in a view: the session, or None

Why a sync runtime rather than the async one behind a loop: a WSGI request thread runs
the engine's flow itself with the engine's own sync driver — no hand-off per request, no
second copy of the dispatch rules — and the bindings' h11 client runs on blocking sockets
(the one client code; see :mod:`io_bindings.http._blocking`). Only async callbacks and
adapters go to the shared background loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

from sansio_auth import AuthConfig, Request, Response
from sansio_auth.http import headers_from_pairs

from .anyio import AccessToken, SessionRead
from .sync import SyncAuth
from .translate import (
    BAD_HOST,
    BODY_TOO_LARGE,
    DEFAULT_HEADER_LIMITS,
    DEFAULT_MAX_BODY_SIZE,
    HEADERS_TOO_LARGE,
    NOT_FOUND,
    BadHost,
    HeaderLimits,
    make_request,
    too_large,
)

__all__ = ["AuthWSGI", "request_from_environ"]

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[Environ, StartResponse], Iterable[bytes]]


def raw_path(environ: Environ) -> str:
    """The path as sent (percent-encoded): the server's raw URI when it gives one, else
    ``SCRIPT_NAME`` + ``PATH_INFO`` (WSGI's latin-1 strings of the decoded bytes) re-quoted."""
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if raw:
        return str(raw).split("?", 1)[0]
    path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
    return quote(path.encode("latin-1"), safe="/:@!$&'()*+,;=~") or "/"


def header_pairs(environ: Environ) -> list[tuple[str, str]]:
    """The request's header lines as the server gave them (lower-case names)."""
    pairs = [
        (k[5:].replace("_", "-").lower(), v) for k, v in environ.items() if k.startswith("HTTP_")
    ]
    for key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if environ.get(key):
            pairs.append((key.replace("_", "-").lower(), environ[key]))
    return pairs


def request_from_environ(
    environ: Environ, body: bytes = b"", language: str | None = None
) -> Request:
    """The engine's :class:`~sansio_auth.Request` for a WSGI environ (raises ``BadHost``);
    ``language``: the framework's active language, for the built-in pages."""
    headers = headers_from_pairs(header_pairs(environ))
    host = headers.get("host")
    if not host:
        name, port = environ.get("SERVER_NAME", "localhost"), environ.get("SERVER_PORT", "80")
        host = name if port in ("80", "443") else f"{name}:{port}"
    return make_request(
        environ.get("REQUEST_METHOD", "GET"),
        scheme=environ.get("wsgi.url_scheme", "http"),
        host=host,
        raw_path=raw_path(environ),
        query=environ.get("QUERY_STRING", ""),
        headers=headers,
        body=body,
        client=environ.get("REMOTE_ADDR") or None,
        language=language,
    )


def _read_body(environ: Environ, limit: int) -> bytes | None:
    """The request body, or ``None`` when it is over ``limit`` bytes."""
    declared = environ.get("CONTENT_LENGTH") or ""
    if too_large(declared, limit):
        return None
    stream = environ["wsgi.input"]
    if declared.isascii() and declared.isdigit():
        body: bytes = stream.read(int(declared))
    elif environ.get("wsgi.input_terminated"):  # a chunked body the server ends for us
        body = stream.read(limit + 1)
    else:  # no length: WSGI says there is no body
        body = b""
    return None if len(body) > limit else body


class AuthWSGI:
    """A WSGI app serving the auth routes under ``base_path``; other paths go to ``app``
    when given, else 404. Bodies over ``max_body_size`` bytes get 413, headers over
    ``header_limits`` (64 KiB, 100 lines by default) 431. ``auth`` is the
    :class:`~io_bindings.sync.SyncAuth` it serves: given, or made from ``config`` and
    ``runtime`` (``clock=``, ``entropy=``, ``cache=``, ``send_http=``, ``env=``)."""

    def __init__(
        self,
        config: AuthConfig | None = None,
        app: WSGIApp | None = None,
        *,
        auth: SyncAuth | None = None,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
        **runtime: Any,
    ) -> None:
        if (auth is None) == (config is None) or (auth is not None and runtime):
            raise TypeError("AuthWSGI takes a config (and runtime options), or an auth")
        self.auth = auth if auth is not None else SyncAuth(config, **runtime)  # type: ignore[arg-type]
        self.app = app
        self.max_body_size = max_body_size
        self.header_limits = header_limits

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        if not self.auth.serves(raw_path(environ)):
            if self.app is not None:
                return self.app(environ, start_response)
            return _send(NOT_FOUND, start_response)
        return _send(self.serve(environ), start_response)

    def serve(self, environ: Environ) -> Response:
        """The response to an auth route's WSGI request (never raises)."""
        if not self.header_limits.allow(header_pairs(environ)):
            return HEADERS_TOO_LARGE
        body = _read_body(environ, self.max_body_size)
        if body is None:
            return BODY_TOO_LARGE
        try:
            request = request_from_environ(environ, body)
        except BadHost:
            return BAD_HOST
        return self.auth.serve_request(request, environ.get("PATH_INFO", ""))

    def session(self, environ: Environ) -> SessionRead:
        """The session of the browser that sent this WSGI request: ``data`` and the
        cookies to set."""
        return self.auth.session(request_from_environ(environ))

    def get_token(self, environ: Environ, *, raw: bool = False) -> Any:
        """Auth.js's ``getToken`` for this WSGI request on this configuration (see
        :meth:`io_bindings.anyio.Auth.get_token`)."""
        return self.auth.get_token(request_from_environ(environ), raw=raw)

    def access_token(self, environ: Environ, *, provider: str) -> AccessToken:
        """The access token of ``provider`` for this WSGI request's session (refreshed if
        due): ``token`` and the cookies to set."""
        return self.auth.access_token(request_from_environ(environ), provider=provider)

    def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> int:
        """End the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere")."""
        return self.auth.revoke_sessions(user_id=user_id, sid=sid)


def _send(response: Response, start_response: StartResponse) -> list[bytes]:
    try:
        reason = HTTPStatus(response.status).phrase
    except ValueError:
        reason = ""
    headers = [*response.header_list(), ("content-length", str(len(response.body)))]
    start_response(f"{response.status} {reason}".rstrip(), headers)
    return [response.body]
