"""The two ASGI apps of a ``HostAuth``: ``handlers`` (every route under ``base_path``, and
its ``GET``/``POST`` Starlette endpoints) and the middleware (the request's auth state, the
``authorized`` callback, the cookies set during the request)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar, TypeAlias

from starlette.requests import Request as StarletteRequest
from starlette.responses import RedirectResponse
from starlette.responses import Response as StarletteResponse

from sansio_auth import Response
from sansio_auth.authorized import Custom, RedirectTo

from ..anyio import serve_asgi
from ..translate import (
    BAD_HOST,
    NOT_FOUND,
    ASGIApp,
    BadHost,
    Message,
    Receive,
    Scope,
    Send,
    asgi_headers,
    asgi_raw_path,
    closing_on_shutdown,
    request_from_scope,
    send_asgi_response,
    serve_lifespan,
    server_error,
)
from ._runtime import Runtimes
from ._state import SCOPE_KEY, RequestState, StateVar

Endpoint: TypeAlias = Callable[[StarletteRequest], Awaitable[StarletteResponse]]


def starlette_response(response: Response) -> StarletteResponse:
    """The engine's :class:`~sansio_auth.Response` as a Starlette response."""
    answer = StarletteResponse(response.body, status_code=response.status)
    length = (b"content-length", str(len(response.body)).encode())
    answer.raw_headers = [*asgi_headers(response), length]
    return answer


class HostAuthMiddleware:
    """ASGI middleware: ``app.add_middleware(auth_result.middleware)``.

    For each HTTP request it makes the request's auth state (``auth()``, ``sign_in``...
    work anywhere below it). Outside ``base_path`` it runs ``callbacks.authorized``
    (``fn(auth=session_or_None, request=request)``, sync or async) through the engine:
    ``True`` passes; ``False``/``None`` redirects (302) to the sign-in page with
    ``callbackUrl``; a string redirects there; a Starlette ``Response`` is sent as it is.
    Without the callback every request passes and the session is not read unless the app
    asks for it. Cookies the engine sets during the request (a re-issued session) go on
    the response; an action's error the app lets through is answered as the engine
    answers it. On lifespan shutdown the runtimes' HTTP connections are closed.
    """

    runtimes: ClassVar[Runtimes]
    current: ClassVar[StateVar]

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, closing_on_shutdown(receive, self.runtimes.aclose), send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = StarletteRequest(scope, receive)
        state = RequestState(scope, await self.runtimes.resolve_for(request))
        scope[SCOPE_KEY] = state
        token = self.current.var.set(state)
        send = _adding_cookies(send, state)
        try:
            answer = None
            if not state.runtime.serves(asgi_raw_path(scope)):
                answer = await self.authorize(state, request)
            try:
                await (self.app if answer is None else answer)(scope, receive, send)
            except Exception as error:
                if (answer := state.response_for(error)) is None:
                    raise
                await answer(scope, receive, send)
        finally:
            self.current.var.reset(token)

    @staticmethod
    async def authorize(state: RequestState, request: StarletteRequest) -> ASGIApp | None:
        """The response the ``authorized`` callback sends instead of the app's, if any."""
        try:
            engine_request = request_from_scope(state.scope, b"")
        except BadHost:
            return starlette_response(BAD_HOST)
        result = await state.runtime.authorized(engine_request, request)
        if result.read:
            state.remember(result)
        decision = result.decision
        if result.status != 200:
            return starlette_response(result)
        if isinstance(decision, RedirectTo):
            return RedirectResponse(decision.url, status_code=302)
        if isinstance(decision, Custom):
            if not isinstance(decision.response, StarletteResponse):
                raise TypeError(
                    "the `authorized` callback must return a bool, a URL string or a Starlette "
                    f"Response, not {type(decision.response).__name__}"
                )
            return decision.response
        return None


def _adding_cookies(send: Send, state: RequestState) -> Send:
    """``send`` that adds the request's pending cookies to the response's headers."""

    async def send_with_cookies(message: Message) -> None:
        if message["type"] == "http.response.start" and state.cookies:
            message = {
                **message,
                "headers": [*message.get("headers", ()), *state.set_cookie_headers()],
            }
        await send(message)

    return send_with_cookies


class Handlers:
    """The auth routes as an ASGI app: mount it at ``base_path`` (``/api/auth``).

    Other paths get 404; bodies over ``max_body_size`` bytes 413; a bad ``Host`` 400;
    an unexpected failure a logged 500. :attr:`GET` and :attr:`POST` are the same
    routes as Starlette endpoints, for ``Route("/api/auth/{rest:path}", handlers.GET)``.
    """

    def __init__(self, runtimes: Runtimes, current: StateVar, max_body_size: int) -> None:
        self.runtimes = runtimes
        self.current = current
        self.max_body_size = max_body_size
        self.middleware: type[HostAuthMiddleware] = type(
            "HostAuthMiddleware", (HostAuthMiddleware,), {"runtimes": runtimes, "current": current}
        )
        """The middleware class of the same ``HostAuth``."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # a mounted app gets none; served as a whole app
            await serve_lifespan(closing_on_shutdown(receive, self.runtimes.aclose), send)
        elif scope["type"] == "http":
            await send_asgi_response(send, await self.serve(scope, receive))

    async def serve(self, scope: Scope, receive: Receive) -> Response:
        """The response to an auth route (never raises; 404 outside ``base_path``)."""
        try:
            state = await self.current.state_for(StarletteRequest(scope, receive), self.runtimes)
        except Exception:
            return server_error(scope.get("path", ""))
        if not state.runtime.serves(asgi_raw_path(scope)):
            return NOT_FOUND
        token = self.current.var.set(state)
        try:
            return await serve_asgi(state.runtime, scope, receive, self.max_body_size)
        finally:
            self.current.var.reset(token)

    async def endpoint(self, request: StarletteRequest) -> StarletteResponse:
        """A Starlette endpoint serving the auth routes (both :attr:`GET` and :attr:`POST`)."""
        return starlette_response(await self.serve(request.scope, request.receive))

    @property
    def GET(self) -> Endpoint:  # noqa: N802 - Auth.js's handler names
        """The endpoint for ``GET`` requests under ``base_path``."""
        return self.endpoint

    @property
    def POST(self) -> Endpoint:  # noqa: N802 - Auth.js's handler names
        """The endpoint for ``POST`` requests under ``base_path``."""
        return self.endpoint
