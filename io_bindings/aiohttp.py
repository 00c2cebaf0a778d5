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
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NoReturn

from aiohttp import hdrs, web
from aiohttp.typedefs import Handler, Middleware
from multidict import CIMultiDict

from sansio_auth import AuthConfig, AuthError, Request, Response
from sansio_auth.actions import ActionResult, AuthorizationParams
from sansio_auth.authorized import sign_in_redirect, signed_in
from sansio_auth.http import headers_from_pairs

from ._state import AuthState
from .anyio import Auth
from .runtimes import RuntimeCache
from .translate import (
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

__all__ = [
    "AUTH_KEY",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_PREFIX",
    "AdapterBAuth",
    "AdapterBAuthConfig",
    "AiohttpAuth",
    "AiohttpAuthConfig",
    "access_token",
    "auth_state",
    "get_session",
    "require_session",
    "send_session_cookies",
]

DEFAULT_PREFIX = "/api/auth"
"""Where the auth routes are served unless ``prefix`` (or ``base_path``) says otherwise."""
AUTH_KEY = "auth"
"""``request[AUTH_KEY]``: the session :meth:`AiohttpAuth.protect` read (a mapping or ``None``)."""
_STATES = web.RequestKey("sansio_auth.states", dict[int, AuthState])  # by id(runtime)
_REFUSALS = {400: web.HTTPBadRequest, 403: web.HTTPForbidden, 429: web.HTTPTooManyRequests}


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
    ``/api/auth``) is the engine's base path. Bodies over ``max_body_size`` bytes get 413,
    headers over ``header_limits`` (64 KiB, 100 lines by default) 431.
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
        header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
        **runtime: Any,
    ) -> None:
        runtime.setdefault("backend", "asyncio")
        self.auth = _runtimes.pin(config, Auth(engine_config(config, prefix), **runtime))
        self.prefix = self.auth.settings.base_path
        self.max_body_size = max_body_size
        self.header_limits = header_limits

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
            session = await auth_state(request, self.auth).session()
            with warnings.catch_warnings():  # the plain key, not a web.RequestKey
                warnings.simplefilter("ignore", web.NotAppKeyWarning)
                request[AUTH_KEY] = session
            if not signed_in(session) and (
                location := sign_in_location(request, self.auth, redirect_to)
            ):
                await _redirect(request, location)
            return await _with_cookies(request, handler)

        return protect

    def middleware(self) -> Middleware:
        """A middleware for the whole app: the cookies the engine set during a request (a
        re-issued session, a sign-in's) go on its response, and an action's error the
        handler lets through (:meth:`sign_in`) is answered as the engine answers it (the
        form's page or the error page)."""

        @web.middleware
        async def send_cookies(request: web.Request, handler: Handler) -> web.StreamResponse:
            return await _with_cookies(request, handler)

        return send_cookies

    async def sign_in(
        self,
        request: web.Request,
        provider: str | None = None,
        options: Mapping[str, Any] | None = None,
        authorization_params: AuthorizationParams | None = None,
    ) -> str:
        """Sign in with ``provider`` (``None``: go to the sign-in page), as Starlette's
        ``sign_in``: ``options`` are ``redirect`` (default ``True``), ``redirectTo`` (default
        the same-site ``Referer``, else ``/``) and the provider's fields. Raises
        ``web.HTTPSeeOther`` to where the browser goes (returns that URL with
        ``redirect=False``), ``web.HTTPForbidden`` for a cross-site post,
        ``web.HTTPTooManyRequests`` over a rate limit (``Retry-After`` and the sign-in route's
        page, or its JSON for a script), and the :class:`~sansio_auth.AuthError` of a failed
        sign-in. The cookies wait on the request
        (:meth:`middleware` or :func:`send_session_cookies` sends them)."""
        state = auth_state(request, self.auth)
        return _answer(request, await state.sign_in(provider, options, authorization_params))

    async def sign_out(self, request: web.Request, options: Mapping[str, Any] | None = None) -> str:
        """Sign out, as :meth:`sign_in` answers (``options``: ``redirect``, ``redirectTo``)."""
        return _answer(request, await auth_state(request, self.auth).sign_out(options))

    async def unstable_update(self, request: web.Request, data: Mapping[str, Any]) -> Any:
        """Update the session with ``data`` (the ``jwt`` callback gets ``trigger="update"``):
        the new session; ``web.HTTPForbidden`` for a cross-site post."""
        read = await auth_state(request, self.auth).update(data)
        if read.status != 200:
            raise _REFUSALS[read.status](text=read.body.decode())
        return read.data

    async def access_token(self, request: web.Request, *, provider: str) -> str | None:
        """A valid access token of ``provider`` for the session of ``request`` (refreshed if
        due), or ``None``. A refresh re-issues the session cookie: it waits on the request
        like :func:`get_session`'s (sent by :meth:`protect` or :func:`send_session_cookies`)."""
        return await auth_state(request, self.auth).access_token(provider)

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
        if not self.header_limits.allow(request.raw_headers):
            return aiohttp_response(HEADERS_TOO_LARGE)
        body = await read_body(request, self.max_body_size)
        if body is None:
            return aiohttp_response(BODY_TOO_LARGE)
        return aiohttp_response(
            await self.auth.serve(lambda: to_engine_request(request, body), raw_path)
        )


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
    data = await auth_state(request, _runtimes.get(config)).session()
    return data if isinstance(data, dict) else None


async def access_token(request: web.Request, config: AuthConfig, *, provider: str) -> str | None:
    """:meth:`AiohttpAuth.access_token` without an :class:`AiohttpAuth` (the runtime of
    ``config``, as :func:`get_session`)."""
    return await auth_state(request, _runtimes.get(config)).access_token(provider)


async def require_session(
    request: web.Request, config: AuthConfig, redirect_to: str | None = None
) -> dict[str, Any]:
    """The signed-in session (one with a ``user``), for server-rendered handlers; otherwise
    raises a 302 to the sign-in page with ``callbackUrl`` = the requested path
    (:func:`sign_in_location`), or to ``redirect_to`` exactly when given."""
    session = await get_session(request, config)
    if session is None or not signed_in(session):
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
    """Add the cookies the engine set during ``request`` (session reads, actions) to
    ``response`` (each once).

    Register it as ``app.on_response_prepare.append(send_session_cookies)`` when handlers
    call :func:`get_session` on paths neither :meth:`AiohttpAuth.middleware` nor
    :meth:`AiohttpAuth.protect` covers.
    """
    for state in (_states(request) or {}).values():
        for cookie in state.take_cookies():
            response.headers.add(hdrs.SET_COOKIE, cookie.header_value())


def auth_state(request: web.Request, auth: Auth) -> AuthState:
    """The auth state of ``request`` for ``auth`` (made once per request and runtime)."""
    states = _states(request)
    if states is None:
        states = request[_STATES] = {}
    state = states.get(id(auth))
    if state is None:
        state = states[id(auth)] = AuthState(auth, _engine_request_of(request))
    return state


def _states(request: web.Request) -> dict[int, AuthState] | None:
    """The auth states made for ``request`` (by ``id`` of their runtime), if any."""
    # An empty storage (the usual case) is not asked: for a missing key, Mapping.get
    # raises and catches a KeyError.
    return request.get(_STATES) if len(request) else None


def _engine_request_of(request: web.Request) -> Callable[[], Request]:
    """The engine request of ``request`` for its :class:`AuthState`, made now: the state then
    holds no reference to ``request`` (whose storage holds the state, a cycle only the
    garbage collector would free). With a bad ``Host``, each use raises ``BadHost``."""
    try:
        engine_request = to_engine_request(request)
    except BadHost:
        return lambda: to_engine_request(request)
    return lambda: engine_request


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
        client=request.remote,
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


async def _redirect(request: web.Request, location: str) -> NoReturn:
    """Raise a 302 to ``location`` carrying the cookies session reads re-issued."""
    redirect = web.HTTPFound(location)
    await send_session_cookies(request, redirect)
    raise redirect


def _answer(request: web.Request, result: ActionResult) -> str:
    """The URL an action answered; raises what the handler answers instead: a refusal (403
    cross-site, 400 bad ``Host``, the route's 429 over a rate limit with its page or JSON),
    the error of a failed action, a 303 to go on."""
    if result.url is None:
        headers = CIMultiDict(result.headers)
        raise _REFUSALS[result.status](headers=headers, text=result.body.decode())
    if result.error is not None:
        raise result.error
    assert result.url is not None
    if result.status == 303:
        raise web.HTTPSeeOther(result.url)
    return result.url


async def _with_cookies(request: web.Request, handler: Handler) -> web.StreamResponse:
    """``handler``'s response (or raised HTTP exception) with the pending engine cookies; an
    action's error it let through becomes the engine's answer (a 303 to its page)."""
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        await send_session_cookies(request, exc)
        raise
    except AuthError as error:
        urls = [state.failed_url(error) for state in (_states(request) or {}).values()]
        if not any(urls):
            raise
        response = web.HTTPSeeOther(next(url for url in urls if url))
    if not response.prepared:
        await send_session_cookies(request, response)
    return response
