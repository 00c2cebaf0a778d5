"""sansio-auth for aiohttp.web: ``AiohttpAuth`` (``GET``, ``POST``, ``routes``, ``protect``)
and ``get_session``.

>>> from io_bindings.aiohttp import AiohttpAuth, get_session
>>> b = AiohttpAuth(config)                  # the auth routes under /api/auth
>>> app.add_routes(b.routes())
>>> app.middlewares.append(b.protect(["/protected", "/account/"]))  # else to sign in
>>> app.on_cleanup.append(b.aclose)          # close the outbound HTTP connections
>>> session = await get_session(request, config)    # in any handler: a mapping or None

The adapter only translates between aiohttp's request and response and the engine's;
see ``docs/adapters/aiohttp.md``.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from aiohttp import hdrs, web
from aiohttp.typedefs import Handler, Middleware
from multidict import CIMultiDict

from sansio_auth import AuthConfig, Cookie, Request, Response
from sansio_auth.authorized import sign_in_redirect
from sansio_auth.http import headers_from_pairs

from .anyio import Auth, SessionRead
from .runtimes import RuntimeCache
from .translate import (
    BAD_HOST,
    BODY_TOO_LARGE,
    DEFAULT_MAX_BODY_SIZE,
    NOT_FOUND,
    BadHost,
    make_request,
    server_error,
    too_large,
)

__all__ = [
    "AUTH_KEY",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_PREFIX",
    "AdapterBAuth",
    "AdapterBAuthConfig",
    "AiohttpAuth",
    "AiohttpAuthConfig",
    "access_token",
    "get_session",
    "require_session",
    "send_session_cookies",
]

DEFAULT_PREFIX = "/api/auth"
"""Where the auth routes are served unless ``prefix`` (or ``base_path``) says otherwise."""
AUTH_KEY = "auth"
"""``request[AUTH_KEY]``: the session :meth:`AiohttpAuth.protect` read (a mapping or ``None``)."""
_READS = web.RequestKey("sansio_auth.session_reads", dict[int, SessionRead])  # by id(runtime)
_PENDING = web.RequestKey("sansio_auth.pending_cookies", list[Cookie])  # not sent yet


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class AiohttpAuthConfig(AuthConfig):
    """:class:`~sansio_auth.AuthConfig` plus ``prefix``, where the auth routes are served."""

    prefix: str | None = None
    """Path of the auth routes, the engine's ``base_path``; default ``/api/auth``."""


def engine_config(config: AuthConfig, prefix: str | None = None) -> AuthConfig:
    """``config`` with ``base_path`` set to the prefix: ``prefix``, else ``config.prefix``,
    else ``config.base_path``, else ``/api/auth``. Two different ones are a ``ValueError``."""
    candidates = (prefix, getattr(config, "prefix", None), config.base_path)
    given = {p.rstrip("/") or "/" for p in candidates if p}
    if len(given) > 1:
        raise ValueError(f"conflicting auth route prefixes {sorted(given)}: give one")
    return dataclasses.replace(config, base_path=given.pop() if given else DEFAULT_PREFIX)


_runtimes = RuntimeCache(lambda config: Auth(engine_config(config), backend="asyncio"))
"""The runtimes of :func:`get_session`; those of :class:`AiohttpAuth` instances are pinned."""


class AiohttpAuth:
    """The auth routes of ``config`` for aiohttp.web (former name: ``AdapterBAuth``).

    The prefix (``prefix=``, :attr:`AiohttpAuthConfig.prefix` or ``base_path``; default
    ``/api/auth``) is the engine's base path. Bodies over ``max_body_size`` bytes get 413.
    ``runtime`` options go to :class:`io_bindings.anyio.Auth` (``clock``, ``entropy``,
    ``cache``, ``transport``, ``env``); outbound HTTP runs on aiohttp's asyncio loop.
    A config the engine refuses raises :class:`~sansio_auth.AuthError` here, at start-up.
    :func:`get_session` with the same ``config`` object uses this runtime.
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        prefix: str | None = None,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        **runtime: Any,
    ) -> None:
        runtime.setdefault("backend", "asyncio")
        self.auth = _runtimes.pin(config, Auth(engine_config(config, prefix), **runtime))
        self.prefix = self.auth.settings.base_path
        self.max_body_size = max_body_size

    async def GET(self, request: web.Request) -> web.Response | None:  # noqa: N802 - Auth.js's handler names
        """The response to an auth route, or ``None`` when the path is outside the prefix."""
        return await self._serve(request)

    async def POST(self, request: web.Request) -> web.Response | None:  # noqa: N802 - Auth.js's handler names
        """The response to an auth route, or ``None`` when the path is outside the prefix."""
        return await self._serve(request)

    def routes(self) -> list[web.RouteDef]:
        """``GET`` and ``POST`` routes for the prefix and every path under it."""
        path = self.prefix + "{tail:(/.*)?}"
        return [web.get(path, self._route, allow_head=False), web.post(path, self._route)]

    def protect(self, paths: Iterable[str], redirect_to: str | None = None) -> Middleware:
        """A middleware redirecting (302) a request whose path equals or starts with one of
        ``paths`` when there is no session or it has no ``user``: to the sign-in page with
        ``callbackUrl`` = the requested path (:func:`sign_in_location`), or to
        ``redirect_to`` exactly when given.

        On those paths the session is read once and kept in ``request["auth"]``; the
        cookies the engine re-issued reach the handler's response. Auth routes are never
        redirected (the sign-in pages must stay reachable).
        """
        prefixes = tuple(paths)
        if not all(p.startswith("/") for p in prefixes):
            raise ValueError(f"protected paths must start with '/': {prefixes!r}")

        @web.middleware
        async def protect(request: web.Request, handler: Handler) -> web.StreamResponse:
            if not _path_in(request, prefixes) or self.auth.serves(_target(request)[0]):
                return await handler(request)
            session = (await read_session(request, self.auth)).data
            with warnings.catch_warnings():  # the plain key, not a web.RequestKey
                warnings.simplefilter("ignore", web.NotAppKeyWarning)
                request[AUTH_KEY] = session
            if not _signed_in(session) and (
                location := sign_in_location(request, self.auth, redirect_to)
            ):
                await _redirect(request, location)
            return await _with_cookies(request, handler)

        return protect

    async def access_token(self, request: web.Request, *, provider: str) -> str | None:
        """A valid access token of ``provider`` for the session of ``request`` (refreshed if
        due), or ``None``. A refresh re-issues the session cookie: it waits on the request
        like :func:`get_session`'s (sent by :meth:`protect` or :func:`send_session_cookies`)."""
        return await read_access_token(request, self.auth, provider)

    async def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> int:
        """End the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere"); see
        :meth:`io_bindings.anyio.Auth.revoke_sessions`."""
        return await self.auth.revoke_sessions(user_id=user_id, sid=sid)

    async def aclose(self, app: web.Application | None = None) -> None:
        """Close the outbound HTTP connections (fits ``app.on_cleanup``)."""
        await self.auth.aclose()

    async def _route(self, request: web.Request) -> web.Response:
        response = await self._serve(request)
        return response if response is not None else aiohttp_response(NOT_FOUND)

    async def _serve(self, request: web.Request) -> web.Response | None:
        raw_path = _target(request)[0]
        if not self.auth.serves(raw_path):
            return None
        body = await read_body(request, self.max_body_size)
        if body is None:
            return aiohttp_response(BODY_TOO_LARGE)
        try:
            engine_request = to_engine_request(request, body)
        except BadHost:
            return aiohttp_response(BAD_HOST)
        try:
            response = await self.auth.respond(engine_request)
        except Exception:
            return aiohttp_response(server_error(raw_path))
        return aiohttp_response(response if response is not None else NOT_FOUND)


AdapterBAuth = AiohttpAuth
"""The former name of :class:`AiohttpAuth`, kept as an alias."""
AdapterBAuthConfig = AiohttpAuthConfig
"""The former name of :class:`AiohttpAuthConfig`, kept as an alias."""


async def get_session(request: web.Request, config: AuthConfig) -> dict[str, Any] | None:
    """The session of the browser that sent ``request``, or ``None``.

    Works without :class:`AiohttpAuth` (one runtime per ``config`` object, built once).
    Read once per request. The cookies the engine re-issues (a slid expiry) wait on the
    request: :meth:`AiohttpAuth.protect` or :func:`send_session_cookies` sends them.
    """
    data = (await read_session(request, _runtimes.get(config))).data
    return data if isinstance(data, dict) else None


async def access_token(request: web.Request, config: AuthConfig, *, provider: str) -> str | None:
    """:meth:`AiohttpAuth.access_token` without an :class:`AiohttpAuth` (the runtime of
    ``config``, as :func:`get_session`)."""
    return await read_access_token(request, _runtimes.get(config), provider)


async def require_session(
    request: web.Request, config: AuthConfig, redirect_to: str | None = None
) -> dict[str, Any]:
    """The signed-in session (one with a ``user``), for server-rendered handlers; otherwise
    raises a 302 to the sign-in page with ``callbackUrl`` = the requested path
    (:func:`sign_in_location`), or to ``redirect_to`` exactly when given."""
    session = await get_session(request, config)
    if session is None or not _signed_in(session):
        location = sign_in_location(request, _runtimes.get(config), redirect_to)
        if location is None:  # the sign-in page itself asks for a session: no way in
            raise web.HTTPUnauthorized(text="sign-in page requires a session")
        await _redirect(request, location)
    return session


def sign_in_location(request: web.Request, auth: Auth, redirect_to: str | None) -> str | None:
    """Where a signed-out ``request`` goes: ``redirect_to`` when given, else the sign-in page
    (``pages.sign_in``, else ``<prefix>/signin``) with ``callbackUrl`` = the requested path
    and query; ``None`` when the request is for that page already (no loop)."""
    if redirect_to is not None:
        return redirect_to
    return sign_in_redirect(auth.settings, request.rel_url.raw_path_qs)


async def send_session_cookies(request: web.Request, response: web.StreamResponse) -> None:
    """Add the cookies session reads re-issued to ``response`` (each once).

    Register it as ``app.on_response_prepare.append(send_session_cookies)`` when handlers
    call :func:`get_session` on paths :meth:`AiohttpAuth.protect` does not cover.
    """
    pending = request.get(_PENDING, [])
    for cookie in pending:
        response.headers.add(hdrs.SET_COOKIE, cookie.header_value())
    pending.clear()


async def read_session(request: web.Request, auth: Auth) -> SessionRead:
    """``auth``'s session read for ``request``, made once per request; its cookies are
    queued for :func:`send_session_cookies`. A bad ``Host`` reads as signed out."""
    if _READS not in request:
        request[_READS], request[_PENDING] = {}, []
    found = request[_READS].get(id(auth))
    if found is None:
        try:
            found = await auth.session(to_engine_request(request))
        except BadHost:
            found = SessionRead(data=None)
        request[_READS][id(auth)] = found
        request[_PENDING].extend(found.cookies)
    return found


async def read_access_token(request: web.Request, auth: Auth, provider: str) -> str | None:
    """``auth``'s access token of ``provider`` for ``request``; the re-issued cookies are
    queued for :func:`send_session_cookies` (replacing a queued one of the same name)."""
    try:
        read = await auth.access_token(to_engine_request(request), provider=provider)
    except BadHost:
        return None
    if _READS not in request:
        request[_READS], request[_PENDING] = {}, []
    pending = request[_PENDING]
    for cookie in read.cookies:
        pending[:] = [c for c in pending if c.name != cookie.name]
        pending.append(cookie)
    return read.token


def to_engine_request(request: web.Request, body: bytes = b"") -> Request:
    """The engine's :class:`~sansio_auth.Request` for ``request`` (raises ``BadHost``)."""
    raw_path, query = _target(request)
    return make_request(
        request.method,
        scheme=request.scheme,
        host=request.host,
        raw_path=raw_path,
        query=query,
        headers=headers_from_pairs(request.raw_headers),
        body=body,
    )


async def read_body(request: web.Request, limit: int) -> bytes | None:
    """The whole request body, or ``None`` when it is over ``limit`` bytes (reads at most
    ``limit + 1``)."""
    if too_large(request.headers.get(hdrs.CONTENT_LENGTH), limit):
        return None
    body = bytearray()
    while chunk := await request.content.read(limit + 1 - len(body)):
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def aiohttp_response(response: Response) -> web.Response:
    """The engine's :class:`~sansio_auth.Response` as an aiohttp response (every header
    and ``Set-Cookie`` line as the engine wrote it)."""
    return web.Response(
        status=response.status, body=response.body, headers=CIMultiDict(response.header_list())
    )


def _target(request: web.Request) -> tuple[str, str]:
    """The path (percent-encoded, as sent) and the query string of ``request``."""
    target = request.raw_path
    if not target.startswith("/"):  # absolute-form: aiohttp's parsed URL
        return request.rel_url.raw_path, request.rel_url.raw_query_string
    path, _, query = target.partition("?")
    return path, query


def _path_in(request: web.Request, prefixes: tuple[str, ...]) -> bool:
    """Whether the path aiohttp routes on (decoded, and as routed) starts with a prefix."""
    return request.path.startswith(prefixes) or request.rel_url.path_safe.startswith(prefixes)


def _signed_in(session: Any) -> bool:
    return isinstance(session, Mapping) and bool(session.get("user"))


async def _redirect(request: web.Request, location: str) -> NoReturn:
    """Raise a 302 to ``location`` carrying the cookies session reads re-issued."""
    redirect = web.HTTPFound(location)
    await send_session_cookies(request, redirect)
    raise redirect


async def _with_cookies(request: web.Request, handler: Handler) -> web.StreamResponse:
    """``handler``'s response (or raised HTTP exception) with the pending engine cookies."""
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        await send_session_cookies(request, exc)
        raise
    if not response.prepared:
        await send_session_cookies(request, response)
    return response
