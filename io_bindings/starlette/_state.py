"""One request's auth state (:class:`io_bindings._state.AuthState`, kept in its scope) and
the context variable that makes it reachable from ``auth()``, ``sign_in`` and the other
helpers; how Starlette answers an action (:class:`Redirect`, 403, the action's error)."""

from __future__ import annotations

import logging
from contextvars import ContextVar

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection
from starlette.responses import RedirectResponse
from starlette.responses import Response as StarletteResponse

from sansio_auth.actions import ActionResult

from .. import anyio as _anyio
from .._state import AuthState
from ..translate import Scope, request_from_scope
from ._runtime import Runtimes

SCOPE_KEY = "sansio_auth.state"
"""Where a request's :class:`RequestState` is kept in its ASGI scope."""
logger = logging.getLogger("sansio_auth")


class Redirect(HTTPException):
    """Raised by ``sign_in``/``sign_out`` to send the browser to :attr:`url` (303 See Other).

    Starlette and FastAPI answer it as a redirect wherever it is raised (it carries the
    ``Location`` header); the middleware and ``@auth`` add the cookies set during the
    request. To return it instead: ``except Redirect as r: return r.response``.
    """

    def __init__(self, url: str, status_code: int = 303) -> None:
        super().__init__(status_code, detail="Redirecting", headers={"location": url})
        self.url = url

    @property
    def response(self) -> RedirectResponse:
        """The redirect as a response."""
        return RedirectResponse(self.url, status_code=self.status_code)


class Refused(Exception):
    """Raised by ``sign_in`` when the sign-in route refuses the attempt with an answer of its
    own: over a rate limit, ``429`` with ``Retry-After`` and the route's page (or its JSON for
    a script). Let through, the middleware and ``@auth`` send :attr:`response`; catch it to
    answer otherwise (:attr:`status_code`, :attr:`headers`)."""

    def __init__(self, result: ActionResult) -> None:
        super().__init__(f"the sign-in route refused the attempt ({result.status})")
        self.status_code = result.status
        self.headers = dict(result.headers)
        self.body = result.body

    @property
    def response(self) -> StarletteResponse:
        """The route's answer as a response."""
        return StarletteResponse(self.body, status_code=self.status_code, headers=self.headers)


class RequestState(AuthState):
    """The auth state of one request (kept in its scope under :data:`SCOPE_KEY`)."""

    served = False
    """Whether the ``handlers`` answered this request."""

    def __init__(self, scope: Scope, runtime: _anyio.Auth) -> None:
        # The state is kept in the scope: a reference back to it would make a cycle, which
        # only the garbage collector frees (each request's objects would wait for it). A
        # copy of the scope as it is now (its values shared) serves to make the request.
        view = dict(scope)
        super().__init__(runtime, lambda: request_from_scope(view, b""))

    def answer(self, result: ActionResult) -> str:
        """The URL an action answered; raises what the endpoint answers instead: a refusal
        (403 cross-site, 400 bad ``Host``; :class:`Refused` over a rate limit), the error of a
        failed action, :class:`Redirect`."""
        if result.url is None:
            if result.status not in (400, 403):
                raise Refused(result)
            raise HTTPException(result.status, detail=result.body.decode())
        if result.error is not None:
            raise result.error
        if result.status == 303:
            raise Redirect(result.url)
        return result.url

    def response_for(self, error: Exception) -> StarletteResponse | None:
        """The response to an error an endpoint let through: a :class:`Redirect` or
        :class:`Refused`, or the page of an action's failure; ``None`` for any other error."""
        if isinstance(error, Redirect | Refused):
            return error.response
        url = self.failed_url(error)
        return None if url is None else Redirect(url).response

    def set_cookie_headers(self) -> list[tuple[bytes, bytes]]:
        """The ``Set-Cookie`` headers to send, once: whoever sends the response takes them."""
        return [(b"set-cookie", c.header_value().encode("latin-1")) for c in self.take_cookies()]


class StateVar:
    """The context variable of one ``HostAuth``: the state of the request being served."""

    def __init__(self, runtimes: Runtimes) -> None:
        self.runtimes = runtimes
        self.var: ContextVar[RequestState | None] = ContextVar("sansio_auth_request", default=None)
        self.warned: set[str] = set()
        """The set-up warnings logged already (each once per process)."""

    def get(self) -> RequestState:
        """The current request's state, or a ``RuntimeError`` outside a request."""
        state = self.var.get()
        if state is None:
            raise RuntimeError(
                "sansio-auth: no current request. Call this inside a request served behind "
                "`auth_result.middleware` (app.add_middleware), the `handlers`, or an endpoint "
                "decorated with `@auth`; or pass the request: `await auth(request)`."
            )
        return state

    async def state_for(self, connection: HTTPConnection) -> RequestState:
        """The request's auth state: the middleware's, or made now (and kept on the request)."""
        state = connection.scope.get(SCOPE_KEY)
        if not isinstance(state, RequestState):
            runtime = self.runtimes.fixed or await self.runtimes.aresolve(connection)
            state = connection.scope[SCOPE_KEY] = RequestState(connection.scope, runtime)
        return state

    def state_now(self, scope: Scope) -> RequestState | None:
        """:meth:`state_for` from an ASGI scope when that needs no config function (the
        middleware's case on every request but the first); ``None`` otherwise."""
        state = scope.get(SCOPE_KEY)
        if isinstance(state, RequestState):
            return state
        runtime = self.runtimes.fixed
        if runtime is None:
            return None
        state = scope[SCOPE_KEY] = RequestState(scope, runtime)
        return state

    def warn_once(self, key: str, message: str) -> None:
        """Log the set-up warning ``message`` unless one of ``key`` was logged already."""
        if key not in self.warned:
            self.warned.add(key)
            logger.warning(message)
