"""``handlers``: the ASGI app serving every route under ``base_path``, and its
``GET``/``POST`` Starlette endpoints."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from starlette.requests import Request as StarletteRequest
from starlette.responses import Response as StarletteResponse

from sansio_auth import Response

from ..translate import (
    NOT_FOUND,
    Receive,
    Scope,
    Send,
    asgi_headers,
    asgi_raw_path,
    asgi_request,
    closing_on_shutdown,
    send_asgi_response,
    serve_lifespan,
    server_error,
)
from ._middleware import HostAuthMiddleware, middleware_class
from ._runtime import Runtimes
from ._state import SCOPE_KEY, RequestState, StateVar

Endpoint: TypeAlias = Callable[[StarletteRequest], Awaitable[StarletteResponse]]


def starlette_response(response: Response) -> StarletteResponse:
    """The engine's :class:`~sansio_auth.Response` as a Starlette response."""
    answer = StarletteResponse(response.body, status_code=response.status)
    length = (b"content-length", str(len(response.body)).encode())
    answer.raw_headers = [*asgi_headers(response), length]
    return answer


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
        self.middleware: type[HostAuthMiddleware] = middleware_class(runtimes, current)
        """The middleware class of the same ``HostAuth``."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # a mounted app gets none; served as a whole app
            await serve_lifespan(closing_on_shutdown(receive, self.runtimes.aclose), send)
            return
        if scope["type"] != "http":
            return
        await send_asgi_response(send, await self.serve(scope, receive))

    async def serve(self, scope: Scope, receive: Receive) -> Response:
        """The response to an auth route (never raises; 404 outside ``base_path``)."""
        try:
            known = scope.get(SCOPE_KEY)  # the middleware's, if it is in front
            if isinstance(known, RequestState):
                runtime = known.runtime
            else:
                runtime = await self.runtimes.resolve(StarletteRequest(scope, receive))
            if not runtime.serves(asgi_raw_path(scope)):
                return NOT_FOUND
            request = await asgi_request(scope, receive, self.max_body_size)
            if isinstance(request, Response):
                return request
            token = self.current.var.set(RequestState(scope, runtime))
            try:
                response = await runtime.respond(request)
            finally:
                self.current.var.reset(token)
        except Exception:
            return server_error(scope.get("path", ""))
        return response if response is not None else NOT_FOUND

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
