"""The engine: turns a :class:`~sansio_auth.http.Request` into a :class:`~sansio_auth.Flow`."""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from functools import partial
from typing import Any

from . import actions, jwt
from ._context import BadRequest, Context, json_reply, origin_of
from ._flow import Flow, Step, log_error
from ._flows import accounts_runtime, runtime, security
from ._flows.accounts import FormError
from ._flows.csrf import csrf_without_flow
from ._flows.session import session_response_without_actions, session_without_actions
from ._flows.strategies import plain_jwt_reads
from ._routes import ROUTES, parse_action
from .config import AuthConfig
from .errors import AuthError, UnknownAction, client_error_type
from .events import (
    Action,
    CallAdapter,
    CallbackReturned,
    Event,
    Failed,
    InvokeCallback,
    Log,
    Respond,
    SendHTTP,
)
from .http import Params, Request, Response, origin_and_path, url_query
from .oauth.cache import ProviderCache
from .settings import Settings, resolve


class NotAnAuthRoute:
    """The type of :data:`NOT_AN_AUTH_ROUTE`."""

    def __repr__(self) -> str:
        return "NOT_AN_AUTH_ROUTE"


NOT_AN_AUTH_ROUTE = NotAnAuthRoute()
"""What :meth:`Engine.handle` returns for a path outside ``base_path``: serve it yourself."""
_SIGN_IN_ROUTES = ("/signin", "/callback", "/signup", "/two-factor")
"""The routes of a sign-in, which get ``deadlines.sign_in`` as a whole."""


class Engine:
    """The pure core. Build one per configuration; call :meth:`handle` per request.

    ``clock`` returns Unix time in seconds and ``entropy(n)`` returns ``n`` random
    bytes: the engine reads neither a clock nor the OS itself. ``env`` is the
    environment mapping used for inference (``AUTH_SECRET``, ``AUTH_URL``, ...).
    ``cache`` keeps discovery documents and JWKS between requests (expiring by
    ``clock``); give one to share it, or a fresh one to start cold. ``counters`` keeps the
    rate-limit counters when neither ``rate_limits.store`` nor the adapter does (see
    :class:`sansio_auth.adapters.Counters`; the runtimes give process memory).
    Configuration errors raise here, at start-up.
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        clock: Callable[[], float],
        entropy: Callable[[int], bytes],
        env: Mapping[str, str] | None = None,
        cache: ProviderCache | None = None,
        counters: Any = None,
    ) -> None:
        self.settings: Settings = resolve(config, env or {}, counters=counters)
        self.cache = ProviderCache() if cache is None else cache
        self._clock = clock
        self._entropy = entropy
        logger = self.settings.logger
        self._trace = self.settings.debug or logger.debug is not None
        self._custom_logger = any(
            getattr(logger, level) is not None for level in ("error", "warn", "debug")
        )
        self._plain_jwt = plain_jwt_reads(self.settings)
        self._decoded = jwt.DecodedTokens()
        """The claims of session tokens read without a flow (a browser's cookie, again)."""
        self._routes_prefix = self.settings.base_path + "/"
        base_path = self.settings.base_path
        self._answered_at_once: dict[str, Callable[[Request, str, float], Response | None]] = {
            base_path + "/session": partial(
                session_response_without_actions,
                self.settings,
                self._decoded,
                entropy,
                self._plain_jwt,
            ),
            base_path + "/csrf": partial(csrf_without_flow, self.settings, entropy),
        }
        """``GET`` routes answered without a flow when they need no action: path → what
        answers ``(request, origin, now)`` (``None``: it needs one)."""

    def serves(self, path: str) -> bool:
        """Whether the (still percent-encoded) ``path`` is under ``base_path``.

        The one decision of what is an auth route: :meth:`handle` makes it, and a
        server that must decide before it has the whole request (to read the body
        only for auth routes, say) asks here.
        """
        return path.startswith(self._routes_prefix) or path == self.settings.base_path

    def handle(self, request: Request) -> Flow | NotAnAuthRoute:
        """The flow that serves ``request``, or :data:`NOT_AN_AUTH_ROUTE`."""
        served = self.response_or_flow(request)
        return Flow.answered(served) if isinstance(served, Response) else served

    def response_or_flow(self, request: Request) -> Response | Flow | NotAnAuthRoute:
        """:meth:`handle`, except that a route answered without an action (a session read
        that runs no callback, a CSRF token) is its :class:`Response`, with no flow around
        it: for a server that drives flows itself, it spares the requests that check their
        session an object each."""
        try:
            origin, path = origin_and_path(request.url)
        except ValueError:  # the flow answers an unparseable URL
            origin, path = "", ""
        else:
            if not self.serves(path):
                return NOT_AN_AUTH_ROUTE
        now = None
        answer = self._answered_at_once.get(path)
        if answer is not None and request.method.upper() == "GET":
            now = self._clock()  # read once, by whichever answers
            response = answer(request, origin, now)
            if response is not None:
                return response
        try:
            query = url_query(request.url)
        except ValueError:
            query = Params()
        flow = self._serve(request, origin, path, query, now)
        if self._trace or self._custom_logger:
            flow = self._logging(flow)
        return Flow(flow, deadline=self._deadline(path))

    def _deadline(self, path: str) -> float | None:
        """``deadlines.sign_in`` for the sign-in routes (``signin``, ``callback``, the
        password provider's ``signup`` and the second factor's ``two-factor``)."""
        rest = path[len(self.settings.base_path) :]
        return self.settings.deadlines.sign_in if rest.startswith(_SIGN_IN_ROUTES) else None

    # -- server-side entry points: for the server's own code, never routed from a browser ----

    def session(self, request: Request) -> Flow:
        """A flow answering a :class:`~sansio_auth.actions.SessionResult`: the session of the
        browser that sent ``request`` (any request of the application: its cookies and origin
        are used) and the cookies to set, read exactly as ``GET session`` reads it (the
        ``jwt`` and ``session`` callbacks, the sliding expiry, revocation, token refresh)."""
        return self._internal(request, runtime.read_session)

    def session_now(self, request: Request) -> actions.SessionResult | None:
        """:meth:`session`'s answer for ``request`` when reading it takes no action (signed
        out; a JWT session that runs no callback), made at once without a flow; ``None``
        when only the flow can answer. Servers try it first (``GET session`` too): it is the
        common case of every request that checks its session."""
        return session_without_actions(
            self.settings,
            self._decoded,
            request,
            self._clock(),
            self._entropy,
            plain_jwt=self._plain_jwt,
        )

    def update_session(self, request: Request, data: Any) -> Flow:
        """A flow answering a :class:`~sansio_auth.actions.SessionResult`: the session
        updated with ``data`` (the ``jwt`` callback gets ``trigger="update"`` and
        ``session=data``; database sessions: the ``session`` callback), as ``POST session``
        does; ``403`` for a cross-site request (:func:`~sansio_auth.actions.cross_site`)."""
        return self._internal(request, lambda ctx: runtime.update_session(ctx, data), form={})

    def sign_in(
        self,
        request: Request,
        provider_id: str | None = None,
        options: Mapping[str, Any] | None = None,
        authorization_params: actions.AuthorizationParams | None = None,
        *,
        form_post: bool = False,
    ) -> Flow:
        """A flow answering an :class:`~sansio_auth.actions.ActionResult`: sign in the browser
        that sent ``request`` with ``provider_id`` (Auth.js's ``signIn``). ``options``:
        ``redirect``, ``redirectTo`` and the provider's fields (credentials, ``email``);
        ``authorization_params`` go to the provider's authorization request. ``form_post``:
        the browser posted ``options`` (with its ``csrfToken``) straight to this action.
        The rules are in :mod:`sansio_auth.actions`."""
        parsed = actions.parse_options(options)
        return self._internal(
            request,
            lambda ctx: runtime.sign_in(ctx, parsed, form_post=form_post),
            action="signin",
            provider_id=provider_id or None,
            query=actions.authorization_query(authorization_params),
            form=parsed.fields,
        )

    def start_session(self, request: Request, user: Mapping[str, Any]) -> Flow:
        """A flow answering a :class:`~sansio_auth.actions.SessionResult` (its ``cookies``
        and ``user_id``): a new session for the browser that sent ``request``, for ``user``
        (a mapping with its ``id``; with an adapter, the stored user of that id), issued as
        a sign-in issues it (the ``jwt`` callback with ``trigger="signIn"`` and an account
        of ``provider`` and ``type`` ``"server"``, ``events.sign_in``), without a provider or
        a second factor. For the server's own code that has decided who signs in (a test
        client's ``force_login``); never routed from a browser."""
        return self._internal(request, lambda ctx: runtime.start_session(ctx, user))

    def sign_out(
        self, request: Request, options: Mapping[str, Any] | None = None, *, form_post: bool = False
    ) -> Flow:
        """A flow answering an :class:`~sansio_auth.actions.ActionResult`: sign out the
        browser that sent ``request`` (Auth.js's ``signOut``; ``options``: ``redirect``,
        ``redirectTo``, ``federated``), as :meth:`sign_in` for the rest."""
        parsed = actions.parse_options(options)
        return self._internal(
            request,
            lambda ctx: runtime.sign_out(ctx, parsed, form_post=form_post),
            action="signout",
            form=parsed.fields,
        )

    def authorized(self, request: Request, framework_request: Any) -> Flow:
        """A flow answering an :class:`~sansio_auth.actions.AuthorizedResult`: what the
        ``authorized`` callback decides for ``request`` (outside ``base_path``), called with
        the session and ``framework_request`` (the request as the framework has it); a
        callback that raises fails the flow (``500``, logged)."""
        return self._internal(request, lambda ctx: runtime.authorized(ctx, framework_request))

    def access_token(self, request: Request, provider_id: str) -> Flow:
        """A flow answering a :class:`~sansio_auth.actions.TokenResult`: the valid access
        token of ``provider_id`` for the session of ``request`` (its cookies and origin are
        used), refreshed if due. Its cookies must reach the browser; the token must not (it
        is a secret for the server to call the provider's API with)."""
        return self._internal(request, lambda ctx: runtime.access_token(ctx, provider_id))

    def csrf_token(self, request: Request) -> Flow:
        """A flow answering a :class:`~sansio_auth.actions.TokenResult`: the CSRF token for
        the forms of the page ``request`` asks for, and its cookie, as ``GET csrf`` gives
        them. It performs no action but a possible log line."""
        return self._internal(request, runtime.csrf_token)

    def get_token(self, request: Request, *, raw: bool = False) -> Flow:
        """A flow answering ``200 {"token": <claims, or the raw string, or null>}``: Auth.js's
        ``getToken`` with this configuration (secrets, cookie names, ``jwt.decode``,
        revocation): the session token of ``request``'s session cookie or, for API clients,
        its ``Authorization: Bearer`` header."""
        return self._internal(request, lambda ctx: runtime.session_token(ctx, raw))

    def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> Flow:
        """A flow ending the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere"):
        database sessions are deleted; JWT sessions (with ``session.revocation``) are
        refused from now on. Answers ``200 {"deleted": n}``, or ``500`` (logged) when the
        configuration cannot revoke them (``{"error", "message"}``, for the server only)."""
        origin = self.settings.url_origin or "http://localhost"
        request = Request(method="POST", url=f"{origin}{self.settings.base_path}/session")
        return self._internal(request, lambda ctx: runtime.revoke_sessions(ctx, user_id, sid))

    def account(self, operation: str, **params: Any) -> Flow:
        """A flow of an account operation for the server (not in Auth.js; see
        :mod:`._flows.accounts_runtime`): ``create_user`` (``email``, ``password``, ``name``,
        ``verified``), ``set_password`` (``user_id``, ``password``), ``two_factor_status`` and
        ``reset_two_factor`` (``user_id``). Answers JSON: the result, ``400 {"error"}`` for
        refused input, or ``500 {"error", "message"}`` (logged)."""
        operations: dict[str, Callable[..., Step[Response]]] = {
            "create_user": accounts_runtime.create_user,
            "set_password": accounts_runtime.set_password,
            "two_factor_status": accounts_runtime.two_factor_status,
            "reset_two_factor": accounts_runtime.reset_two_factor,
        }
        run = operations.get(operation)
        if run is None:
            raise ValueError(f"no account operation {operation!r}: one of {sorted(operations)}")
        origin = self.settings.url_origin or "http://localhost"
        request = Request(method="POST", url=f"{origin}{self.settings.base_path}/session")
        return self._internal(request, lambda ctx: run(ctx, **params))

    def account_operation(
        self, request: Request, operation: str, params: Mapping[str, str | None] | None = None
    ) -> Flow:
        """A flow running one of the user's own operations (``list-sessions``,
        ``revoke-session``, ``revoke-other-sessions``, ``list-accounts``, ``unlink-account``,
        ``delete-user``: :data:`~sansio_auth._flows.security.OPERATIONS`) for the session of
        ``request``, as its route would but without a CSRF token (the server asks). Answers
        ``200`` with the result as JSON, or ``{"error": <type>, "message"}`` with the refusal's
        status; the response's cookies must reach the browser (a deleted session)."""
        if operation not in security.OPERATIONS:
            raise ValueError(f"unknown operation {operation!r}")
        params = dict(params or {})
        return self._internal(request, lambda ctx: security.internal(ctx, operation, params))

    def _internal(
        self,
        request: Request,
        flow: Callable[[Context], Step[Response]],
        *,
        action: str = "session",
        provider_id: str | None = None,
        query: dict[str, str] | None = None,
        form: dict[str, Any] | None = None,
    ) -> Flow:
        """A flow of :mod:`._flows.runtime` for ``request``, logged like any other; a failure
        answers ``500 {"error", "message"}`` (for the server, never a browser)."""
        try:
            origin = origin_and_path(request.url)[0]
        except ValueError:
            origin = ""
        ctx = self._context(request, origin, action, provider_id, query or {}, form)
        gen = self._run_internal(ctx, flow)
        if self._trace or self._custom_logger:
            gen = self._logging(gen)
        signs_in = action in ("signin", "callback")  # a server-side sign-in: the same deadline
        return Flow(gen, deadline=self.settings.deadlines.sign_in if signs_in else None)

    def _run_internal(
        self, ctx: Context, flow: Callable[[Context], Step[Response]]
    ) -> Generator[Action, Event, None]:
        try:
            response = yield from flow(ctx)
        except Exception as err:
            yield from log_error(err)
            failure = {"error": client_error_type(err), "message": str(err)}
            response = ctx.respond(json_reply(failure, status=500), failed=True)
        yield Respond(response=response)

    def _logging(self, flow: Generator[Action, Event, None]) -> Generator[Action, Event, None]:
        """``flow`` with its ``Log`` actions sent to the custom logger, and (when debugging)
        a debug line before each action."""
        event: Event | None = None
        while True:
            action = flow.send(event)  # type: ignore[arg-type]
            if isinstance(action, Log):
                yield from self._log(action)
                event = CallbackReturned()
                continue
            if isinstance(action, Respond):
                yield action
                return
            if self._trace:
                yield from self._log(Log(level="debug", code="action", message=describe(action)))
            event = yield action

    def _log(self, entry: Log) -> Step[None]:
        custom = getattr(self.settings.logger, entry.level)
        if custom is None:
            if entry.level != "debug" or self.settings.debug:
                yield entry
            return
        params: dict[str, Any]
        if entry.level == "error":
            params = {"error": entry.error or AuthError(entry.message)}
        elif entry.level == "warn":
            params = {"code": entry.code}
        else:
            params = {"message": entry.message, "metadata": entry.metadata}
        event = yield InvokeCallback(name=f"logger.{entry.level}", function=custom, params=params)
        if isinstance(event, Failed):
            yield Log(
                level="error",
                code="LoggerError",
                message=f"the custom logger raised {type(event.error).__name__}",
                error=event.error,
            )
            yield entry

    def _context(
        self,
        request: Request,
        origin: str,
        action: str,
        provider_id: str | None,
        query: dict[str, str],
        form: dict[str, Any] | None = None,
        *,
        now: float | None = None,
    ) -> Context:
        """The context one request's flow runs in (the clock read once, here, unless the
        request's ``now`` was read already)."""
        settings = self.settings
        return Context(
            settings,
            request,
            cache=self.cache,
            now=self._clock() if now is None else now,
            entropy=self._entropy,
            origin=origin_of(settings, request, origin),
            action=action,
            provider_id=provider_id,
            query=query,
            form=form,
        )

    def _serve(
        self, request: Request, origin: str, path: str, query: dict[str, str], now: float | None
    ) -> Generator[Action, Event, None]:
        settings = self.settings
        ctx: Context | None = None
        try:
            if not path:
                raise BadRequest("malformed request URL")
            action, provider_id = parse_action(path, settings.base_path)
            if request.method.upper() not in ("GET", "POST"):
                raise BadRequest(f"method {request.method} is not allowed")
            ctx = self._context(request, origin, action, provider_id, query, now=now)
            route = ROUTES.get((ctx.method, action))
            if route is None:
                raise UnknownAction(f"cannot {ctx.method} {action}")
            ctx.answer_headers, ctx.json_redirects = route.headers, route.json_redirects
            reply = yield from route.flow(ctx)
            if reply.refused is not None:
                message = f"{ctx.method} {action} refused the form: {reply.refused}"
                yield from log_error(FormError(reply.refused, message))
            response = ctx.respond(reply)
        except BadRequest as err:
            yield from log_error(UnknownAction(str(err), hint=err.hint))
            response = Response(
                status=400, headers=(("content-type", "application/json"),), body=b'"Bad request."'
            )
        except Exception as err:
            yield from log_error(err)
            if ctx is None:
                raise
            response = ctx.respond(ctx.error_reply(err), failed=True)
        yield Respond(response=response)


def describe(action: Action) -> str:
    """A one-line, secret-free description of ``action`` for debug logs."""
    match action:
        case InvokeCallback(name=name):
            return f"callback {name}"
        case CallAdapter(method=method):
            return f"adapter_{method}"
        case SendHTTP(request=request):
            return f"http {request.method} {request.shown()}"
    return type(action).__name__
