"""The two ASGI apps of a ``HostAuth``: ``handlers`` (every route under ``base_path``, and
its ``GET``/``POST`` Starlette endpoints) and the middleware (the request's auth state, the
``authorized`` callback, the cookies set during the request)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import ClassVar

from starlette.requests import Request as StarletteRequest
from starlette.responses import RedirectResponse
from starlette.responses import Response as StarletteResponse

from sansio_auth import Response
from sansio_auth.authorized import Custom, RedirectTo

from ..anyio import serve_asgi
from ..translate import (
    DEFAULT_HEADER_LIMITS,
    NOT_FOUND,
    ASGIApp,
    HeaderLimits,
    Message,
    Receive,
    Scope,
    Send,
    asgi_headers,
    asgi_raw_path,
    closing_on_shutdown,
    send_asgi_response,
    serve_lifespan,
    server_error,
)
from ._state import RequestState, StateVar


def starlette_response(response: Response) -> StarletteResponse:
    """The engine's :class:`~sansio_auth.Response` as a Starlette response."""
    answer = StarletteResponse(response.body, status_code=response.status)
    length = (b"content-length", str(len(response.body)).encode())
    answer.raw_headers = [*asgi_headers(response), length]
    return answer


class HostAuthMiddleware:
    """ASGI middleware: ``app.add_middleware(auth_result.middleware)``.

    It makes each request's auth state (``auth()``, ``sign_in``... work anywhere below it);
    outside ``base_path`` the engine runs ``callbacks.authorized`` (see
    :mod:`sansio_auth.authorized`; a custom answer must be a Starlette ``Response``). The
    cookies set during the request go on the response; an action's error the app lets
    through is answered as the engine answers it. Lifespan shutdown closes the runtimes.
    """

    current: ClassVar[StateVar]

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, closing_on_shutdown(receive, self.current.runtimes.aclose), send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = self.current.state_now(scope)
        if state is None:
            state = await self.current.state_for(StarletteRequest(scope, receive))
        token = self.current.var.set(state)
        runtime = state.runtime
        send = _sending(send, state, self.current, scope)
        try:
            answer = None
            # without the callback, every request is allowed, its session unread
            if runtime.settings.callbacks.authorized is not None and not runtime.engine.serves(
                asgi_raw_path(scope)
            ):
                answer = await self.authorize(state, StarletteRequest(scope, receive))
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
        result = await state.authorized(request)
        if result.status != 200:
            return starlette_response(result)
        if isinstance(decision := result.decision, RedirectTo):
            return RedirectResponse(decision.url, status_code=302)
        if isinstance(decision, Custom):
            if not isinstance(decision.response, StarletteResponse):
                raise TypeError(
                    "the `authorized` callback must return a bool, a URL string or a Starlette "
                    f"Response, not {type(decision.response).__name__}"
                )
            return decision.response
        return None


def _sending(send: Send, state: RequestState, current: StateVar, scope: Scope) -> Send:
    """``send`` that adds the request's pending cookies to the response's headers, and logs
    (once) a 404 for a path under ``base_path`` that the ``handlers`` never saw: they are not
    mounted at ``base_path``."""

    # not a coroutine: it hands back send's own awaitable, sparing each message a frame
    def send_with_cookies(message: Message) -> Awaitable[None]:
        if message["type"] == "http.response.start":
            if state.cookies:
                headers = [*message.get("headers", ()), *state.set_cookie_headers()]
                message = {**message, "headers": headers}
            if message["status"] == 404 and not state.served:
                _notice_a_miss(state, current, asgi_raw_path(scope))
        return send(message)

    return send_with_cookies


def _notice_a_miss(state: RequestState, current: StateVar, path: str) -> None:
    base_path = state.runtime.settings.base_path
    if state.runtime.engine.serves(path):
        current.warn_once(
            f"unserved {base_path}",
            f"[auth][warn] {path} is under base_path {base_path}, but the auth handlers "
            "never saw it (the app answered 404): mount them there, "
            f'app.mount("{base_path}", handlers) (Starlette: Mount("{base_path}", '
            "app=handlers)), or set base_path to where they are mounted.",
        )


class Handlers:
    """The auth routes as an ASGI app: mount it at ``base_path`` (``/api/auth``).

    Other paths get 404; bodies over ``max_body_size`` bytes 413, headers over
    ``header_limits`` 431; a bad ``Host`` 400; an unexpected failure a logged 500.
    :attr:`GET` and :attr:`POST` are the same routes as Starlette endpoints, for
    ``Route("/api/auth/{rest:path}", handlers.GET)``.
    """

    def __init__(
        self,
        current: StateVar,
        max_body_size: int,
        header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
    ) -> None:
        self.runtimes = current.runtimes
        self.current = current
        self.max_body_size = max_body_size
        self.header_limits = header_limits
        self.middleware: type[HostAuthMiddleware] = type(
            "HostAuthMiddleware", (HostAuthMiddleware,), {"current": current}
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
            state = await self.current.state_for(StarletteRequest(scope, receive))
        except Exception:
            return server_error(scope.get("path", ""))
        state.served = True
        if not state.runtime.serves(asgi_raw_path(scope)):
            self._report_misplaced(scope, state.runtime.settings.base_path)
            return NOT_FOUND
        token = self.current.var.set(state)
        try:
            return await serve_asgi(
                state.runtime, scope, receive, self.max_body_size, self.header_limits
            )
        finally:
            self.current.var.reset(token)

    def _report_misplaced(self, scope: Scope, base_path: str) -> None:
        """Log (once) that the handlers are mounted or routed away from ``base_path``: they
        got a request outside it, which they answer 404."""
        if "app_root_path" in scope:  # under a Mount: its path is the root path's new part
            where = scope.get("root_path", "")[len(scope["app_root_path"]) :]
            if where == base_path:
                return
            fix = f'mount them at base_path, app.mount("{base_path}", handlers)'
            seen = f"the auth handlers are mounted at {where}"
        elif scope.get("endpoint") is not None:  # a Route to GET/POST
            where = asgi_raw_path(scope)
            fix = f'route "{base_path}/{{rest:path}}" to them'
            seen = f"the auth handlers' endpoint got {where}"
        else:  # served as the whole app: a path outside base_path is just not an auth route
            return
        self.current.warn_once(
            f"misplaced {where} {base_path}",
            f"[auth][warn] {seen}, but base_path is {base_path}: every auth route answers "
            f'404. Either {fix}, or set base_path to match (AuthConfig(base_path="..."), '
            "or the path of AUTH_URL).",
        )

    async def GET(self, request: StarletteRequest) -> StarletteResponse:  # noqa: N802 - Auth.js's names
        """A Starlette endpoint serving the auth routes (:attr:`POST` is the same)."""
        return starlette_response(await self.serve(request.scope, request.receive))

    POST = GET
