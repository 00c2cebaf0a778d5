"""``auth_result.middleware``: runs the ``authorized`` callback for every request outside
``base_path`` and adds the cookies set during the request to the app's response."""

from __future__ import annotations

import inspect
from typing import ClassVar

from starlette.requests import Request as StarletteRequest
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.responses import Response as StarletteResponse

from sansio_auth.authorized import Allow, Custom, RedirectTo, decide
from sansio_auth.events import call_with_params

from ..translate import (
    ASGIApp,
    BadHost,
    Message,
    Receive,
    Scope,
    Send,
    asgi_raw_path,
    closing_on_shutdown,
    request_from_scope,
)
from ._runtime import Runtimes
from ._state import SCOPE_KEY, RequestState, StateVar, set_cookie_headers


class HostAuthMiddleware:
    """ASGI middleware: ``app.add_middleware(auth_result.middleware)``.

    For each HTTP request it makes the request's auth state (``auth()``, ``sign_in``...
    work anywhere below it). Outside ``base_path`` it runs ``callbacks.authorized``
    (``fn(auth=session_or_None, request=request)``, sync or async): ``True`` passes;
    ``False``/``None`` redirects (302) to the sign-in page with ``callbackUrl``; a string
    redirects there; a Starlette ``Response`` is sent as it is. Without the callback
    every request passes and the session is not read unless the app asks for it. Cookies
    the engine sets during the request (a re-issued session) go on the response.
    On lifespan shutdown the runtimes' HTTP connections are closed.
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
        runtime = await self.runtimes.resolve(StarletteRequest(scope, receive))
        state = RequestState(scope, runtime)
        scope[SCOPE_KEY] = state
        token = self.current.var.set(state)
        try:
            if not runtime.serves(asgi_raw_path(scope)):
                answer = await self.authorize(state, StarletteRequest(scope, receive))
                if answer is not None:
                    answer.raw_headers.extend(set_cookie_headers(state.take_cookies()))
                    await answer(scope, receive, send)
                    return
            await self.app(scope, receive, _adding_cookies(send, state))
        finally:
            self.current.var.reset(token)

    @staticmethod
    async def authorize(state: RequestState, request: StarletteRequest) -> StarletteResponse | None:
        """The response the ``authorized`` callback sends instead of the app's, if any."""
        callback = state.runtime.settings.callbacks.authorized
        if callback is None:
            return None
        try:
            url = request_from_scope(state.scope, b"").url
        except BadHost:
            return PlainTextResponse("Bad Request: invalid Host header", status_code=400)
        result = call_with_params(callback, {"auth": await state.session(), "request": request})
        if inspect.isawaitable(result):
            result = await result
        decision = decide(result, request_url=url, settings=state.runtime.settings)
        if isinstance(decision, Allow):
            return None
        if isinstance(decision, RedirectTo):
            return RedirectResponse(decision.url, status_code=302)
        assert isinstance(decision, Custom)
        if not isinstance(decision.response, StarletteResponse):
            raise TypeError(
                "the `authorized` callback must return a bool, a URL string or a Starlette "
                f"Response, not {type(decision.response).__name__}"
            )
        return decision.response


def _adding_cookies(send: Send, state: RequestState) -> Send:
    """``send`` that adds the request's pending cookies to the response's headers."""

    async def send_with_cookies(message: Message) -> None:
        if message["type"] == "http.response.start":
            cookies = set_cookie_headers(state.take_cookies())
            if cookies:
                message = {**message, "headers": [*message.get("headers", ()), *cookies]}
        await send(message)

    return send_with_cookies


def middleware_class(runtimes: Runtimes, current: StateVar) -> type[HostAuthMiddleware]:
    """The middleware class of one ``HostAuth`` (``add_middleware`` takes a class)."""
    return type(
        "HostAuthMiddleware", (HostAuthMiddleware,), {"runtimes": runtimes, "current": current}
    )
