"""The anyio binding: runs the engine's flows on asyncio or trio, and serves them over ASGI.

>>> from io_bindings.anyio import AuthApp
>>> app = AuthApp(AuthConfig(providers=[...]))   # uvicorn module:app, or hypercorn -k trio
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

import anyio

from sansio_auth import AuthConfig, Flow, NotAnAuthRoute, Request, Response
from sansio_auth.actions import ActionResult, AuthorizationParams, AuthorizedResult
from sansio_auth.drivers import async_performer
from sansio_auth.events import Action, Event, VerifyPassword
from sansio_auth.oauth.cache import ProviderCache

from ._deadlines import CUT, Budget, deadline_of, outcome, within
from ._driver_io import CPUPool, HTTPTransport, log_writer
from ._runtime import AccessToken, Call, Runtime, SessionRead, T
from ._single_flight import SingleFlight, key_of
from .http import AnyioBackend, AsyncioBackend, HTTPClient, NetworkBackend
from .self_service import Change, LinkedAccount, UserSession, accounts_of, change_of, sessions_of
from .translate import (
    BAD_HOST,
    BODILESS,
    DEFAULT_HEADER_LIMITS,
    DEFAULT_MAX_BODY_SIZE,
    NOT_FOUND,
    ASGIApp,
    BadHost,
    HeaderLimits,
    Receive,
    Scope,
    Send,
    asgi_raw_path,
    asgi_request,
    asgi_request_now,
    closing_on_shutdown,
    request_from_scope,
    send_asgi_response,
    serve_lifespan,
    server_error,
)

__all__ = [
    "DEFAULT_MAX_BODY_SIZE",
    "AccessToken",
    "Auth",
    "AuthApp",
    "HeaderLimits",
    "SessionRead",
    "request_from_scope",
]

BackendName = Literal["anyio", "asyncio", "trio"]


def network_backend(backend: NetworkBackend | BackendName) -> NetworkBackend:
    """The HTTP client's network backend, given as one or by name."""
    if not isinstance(backend, str):
        return backend
    if backend == "anyio":
        return AnyioBackend()
    if backend == "asyncio":
        return AsyncioBackend()
    if backend == "trio":
        from .http._trio import TrioBackend  # imports trio: only when asked for

        return TrioBackend()
    raise ValueError(f"unknown network backend {backend!r} (anyio, asyncio or trio)")


class Auth(Runtime):
    """The runtime: the engine, its clock, entropy, provider cache and HTTP transport.

    Every binding and framework adapter is built on one of these. ``clock`` and
    ``entropy`` default to the real ones (``time.time``, ``secrets.token_bytes``);
    give fixed ones and every flow is deterministic. ``env`` defaults to
    ``os.environ``. Outbound HTTP goes through ``transport``, by default an
    :class:`~io_bindings.http.HTTPClient` on ``backend`` (``"anyio"``,
    ``"asyncio"``, ``"trio"`` or a :class:`~io_bindings.http.NetworkBackend`);
    :meth:`aclose` closes that default client's connections.

    Besides serving the auth routes (:meth:`respond`), it offers the server-side actions
    to every adapter, each taking the request the browser sent to the application and
    answering what to send back with the cookies to set (the rules are the engine's:
    :mod:`sansio_auth.actions`): :meth:`session`, :meth:`sign_in`, :meth:`sign_out`,
    :meth:`update_session`, :meth:`authorized`, :meth:`access_token`, and
    :meth:`revoke_sessions`. :class:`io_bindings.sync.SyncAuth` is its sync twin.
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], bytes] = secrets.token_bytes,
        cache: ProviderCache | None = None,
        transport: HTTPTransport | None = None,
        env: Mapping[str, str] | None = None,
        backend: NetworkBackend | BackendName = "anyio",
    ) -> None:
        super().__init__(config, clock=clock, entropy=entropy, cache=cache, env=env)
        self.http_client: HTTPClient | None = None
        if transport is None:
            transport = HTTPClient(network_backend(backend), proxy_env=self.env)
            self.http_client = transport
        self.transport = transport
        self.cpu = CPUPool()
        """Where password hashing runs: worker threads, one per CPU at most."""
        self._perform = async_performer(
            send_http=transport.send, log=log_writer(self.settings.debug), offload=self.cpu
        )
        self._single_flight = SingleFlight(clock)

    async def aclose(self) -> None:
        """Close the default HTTP client's idle connections (a given ``transport`` is yours)."""
        if self.http_client is not None:
            await self.http_client.aclose()

    async def perform(self, action: Action, budget: Budget | None = None) -> Event:
        """Perform one action (exceptions become :class:`~sansio_auth.events.Failed`) within
        its deadline (see :mod:`io_bindings._deadlines`; ``budget``: what is left of its
        flow's); actions marked ``single_flight`` go one at a time per key, sharing the
        answer."""
        deadline = deadline_of(
            self.settings.deadlines, action, None if budget is None else budget.left()
        )
        if deadline is None:
            return await self._perform_now(action)
        if deadline.seconds <= 0 and budget is not None:
            return budget.report()
        begun = time.monotonic()
        event = await within(self._perform_now(action), deadline.seconds)
        event = None if event is CUT else event
        return outcome(action, event, time.monotonic() - begun, deadline, budget)

    async def _perform_now(self, action: Action) -> Event:
        key = key_of(action)
        if key is not None:
            return await self._single_flight.run(key, lambda: self._perform(action))
        if isinstance(action, VerifyPassword):  # a failure lasts as long as the costliest check
            began = time.perf_counter()
            event = await self._perform(action)
            hold = self.password_checks.hold(action, event, time.perf_counter() - began)
            if hold > 0:
                await anyio.sleep(hold)
            return event
        return await self._perform(action)

    async def drive(self, flow: Flow) -> Response:
        """Drive ``flow`` to its response, each action within its deadline and the whole
        within the flow's (:attr:`~sansio_auth.Flow.deadline`)."""
        if flow.deadline is None:
            return await flow.run(self.perform)
        budget = Budget(flow.deadline, time.monotonic)
        return await flow.run(lambda action: self.perform(action, budget))

    async def run(self, call: Call[T]) -> T:
        """Drive ``call``'s flow (:meth:`drive`) and make its result."""
        return call.result(await self.drive(call.flow))

    async def respond(self, request: Request) -> Response | None:
        """The response to ``request``, or ``None`` when it is not an auth route (a route
        the engine answered at once, as most session reads, is not driven)."""
        served = self._answer(request)
        if isinstance(served, Flow):
            served = await self.drive(served)
        return None if isinstance(served, NotAnAuthRoute) else served

    async def serve(self, make_request: Callable[[], Request], where: str) -> Response:
        """:meth:`serve_request` the request ``make_request`` makes; 400 when it raises
        :class:`~io_bindings.translate.BadHost`."""
        try:
            request = make_request()
        except BadHost:
            return BAD_HOST
        return await self.serve_request(request, where)

    async def serve_request(self, request: Request, where: str) -> Response:
        """:meth:`respond` for a server (never raises): a logged 500 naming ``where`` on
        failure, 404 when it is no auth route after all."""
        try:  # respond's three lines again: a coroutine less on every request
            served = self._answer(request)
            if isinstance(served, Flow):
                served = await self.drive(served)
        except Exception:
            return server_error(where)
        return NOT_FOUND if isinstance(served, NotAnAuthRoute) else served

    async def session(self, request: Request) -> SessionRead:
        """The session of the browser that sent ``request`` (any request: its cookies,
        origin and forwarding headers are used), with the cookies to set."""
        read = self.engine.session_now(request)
        return read if read is not None else await self.run(self.session_call(request))

    async def sign_in(
        self,
        request: Request,
        provider: str | None = None,
        options: Mapping[str, Any] | None = None,
        authorization_params: AuthorizationParams | None = None,
        *,
        form_post: bool = False,
    ) -> ActionResult:
        """Sign in the browser that sent ``request`` with ``provider`` (Auth.js's
        ``signIn``): ``options`` are ``redirect``, ``redirectTo`` and the provider's fields;
        ``form_post`` when the browser posted them (with its ``csrfToken``) straight here.
        The answer (a 303, or 403 for a cross-site request) carries ``url``, ``error``
        (a failed sign-in) and the cookies (see :meth:`sansio_auth.Engine.sign_in`)."""
        call = self.sign_in_call(request, provider, options, authorization_params, form_post)
        return await self.run(call)

    async def sign_out(
        self, request: Request, options: Mapping[str, Any] | None = None, *, form_post: bool = False
    ) -> ActionResult:
        """Sign out the browser that sent ``request`` (Auth.js's ``signOut``), as
        :meth:`sign_in`."""
        return await self.run(self.sign_out_call(request, options, form_post))

    async def update_session(self, request: Request, data: Any) -> SessionRead:
        """Update the session of ``request``'s browser with ``data`` (Auth.js's
        ``unstable_update``): the new session and cookies (403 for a cross-site request)."""
        return await self.run(self.update_session_call(request, data))

    async def authorized(self, request: Request, framework_request: Any) -> AuthorizedResult:
        """What the ``authorized`` callback decides for ``request`` (given the session and
        ``framework_request``); allowed, without reading the session, when there is none."""
        return await self.run(self.authorized_call(request, framework_request))

    async def start_session(self, request: Request, user: Mapping[str, Any]) -> SessionRead:
        """A new session for ``user`` (its ``id``: a stored user's, with an adapter) in the
        browser that sent ``request``, as a sign-in makes it but with no provider
        (:meth:`sansio_auth.Engine.start_session`): for tests (a test client's
        ``force_login``) and server code that has decided who signs in. The result's
        ``cookies`` must reach the browser. Raises :class:`~sansio_auth.AuthError` naming
        the cause when it fails (no such user)."""
        return await self.run(self.start_session_call(request, user))

    async def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> int:
        """End the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere"): database
        sessions are deleted (their number is returned), JWT sessions are refused from now on
        (``session={"revocation": True}``). Raises :class:`RuntimeError` naming the cause
        when they cannot be (no adapter, revocation off, the adapter failed)."""
        return await self.run(self.revoke_sessions_call(user_id, sid))

    async def get_token(self, request: Request, *, raw: bool = False) -> Any:
        """Auth.js's ``getToken`` on this configuration: the decoded session token of
        ``request`` (its session cookie, else ``Authorization: Bearer``), the token as sent
        with ``raw``, or ``None``. Honours ``jwt.decode`` and revocation."""
        return await self.run(self.get_token_call(request, raw))

    async def access_token(self, request: Request, *, provider: str) -> AccessToken:
        """The access token of ``provider`` for the session of ``request``, refreshed if
        due (concurrent refreshes of one token share one token-endpoint call)."""
        return await self.run(self.access_token_call(request, provider))

    # -- accounts (not in Auth.js; docs/accounts.md) ----------------------------------------

    async def create_password_user(
        self, email: str, password: str, *, name: str | None = None, verified: bool = False
    ) -> dict[str, Any]:
        """Create a user with ``email`` and ``password`` (hashed in a worker thread); the user
        as stored. :class:`ValueError` names refused input (``too_short``, ``invalid_email``,
        ``email_taken``...)."""
        return await self.run(self.create_password_user_call(email, password, name, verified))

    async def set_password(self, user_id: str, password: str) -> None:
        """Set the password of ``user_id`` (an administrator's reset; their sessions stay)."""
        await self.run(self.set_password_call(user_id, password))

    async def two_factor_status(self, user_id: str) -> dict[str, Any]:
        """``{"enabled": bool, "recovery_codes_left": int}`` of ``user_id``."""
        return await self.run(self.two_factor_status_call(user_id))

    async def reset_two_factor(self, user_id: str) -> bool:
        """Remove the second factor of ``user_id`` (a lost phone); whether they had one."""
        return await self.run(self.reset_two_factor_call(user_id))

    # -- a user's own sessions and accounts (io_bindings.self_service) ----------------------

    async def list_sessions(self, request: Request) -> list[UserSession]:
        """The live sessions of the user signed in by ``request`` (its own marked
        ``current``); :class:`~sansio_auth.errors.SessionRequired` when signed out."""
        return await self.run(self.account_call(request, "list-sessions", sessions_of))

    async def revoke_session(self, request: Request, session_id: str) -> Change:
        """End the user's session ``session_id`` (:class:`~sansio_auth.errors.RecordNotFound`
        if it is none of theirs); ending their own deletes its cookie (``Change.cookies``)."""
        return await self.run(
            self.account_call(request, "revoke-session", change_of, id=session_id)
        )

    async def revoke_other_sessions(self, request: Request) -> Change:
        """End every session of the user but the one of ``request``."""
        return await self.run(self.account_call(request, "revoke-other-sessions", change_of))

    async def list_accounts(self, request: Request) -> list[LinkedAccount]:
        """The user's linked accounts, each saying whether it may be unlinked."""
        return await self.run(self.account_call(request, "list-accounts", accounts_of))

    async def unlink_account(
        self, request: Request, provider: str, provider_account_id: str | None = None
    ) -> Change:
        """Unlink the user's ``provider`` account (``provider_account_id``, or their only
        one); needs a fresh sign-in (:class:`~sansio_auth.errors.SessionNotFresh`) and never
        removes the last way in (:class:`~sansio_auth.errors.LastSignInMethod`)."""
        call = self.account_call(
            request,
            "unlink-account",
            change_of,
            provider=provider,
            providerAccountId=provider_account_id,
        )
        return await self.run(call)

    async def delete_user(self, request: Request) -> Change:
        """Delete the user signed in by ``request`` with everything stored of them, ending
        all their sessions; needs a fresh sign-in. The cookies delete the session cookie."""
        return await self.run(self.account_call(request, "delete-user", change_of))


class AuthApp:
    """An ASGI app serving the auth routes under ``base_path``.

    Other paths go to ``app`` when given (so this can wrap your app), else 404.
    Request bodies over ``max_body_size`` bytes are refused with 413, headers over
    ``header_limits`` (64 KiB, 100 lines by default) with 431. The ASGI
    lifespan shutdown closes the HTTP client's connections. ``auth`` is the
    :class:`Auth` it serves: given, or made from ``config`` and ``runtime``
    (``clock=``, ``entropy=``, ``cache=``, ``transport=``, ``env=``, ``backend=``).
    """

    def __init__(
        self,
        config: AuthConfig | None = None,
        *,
        auth: Auth | None = None,
        app: ASGIApp | None = None,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
        **runtime: Any,
    ) -> None:
        if (auth is None) == (config is None) or (auth is not None and runtime):
            raise TypeError("AuthApp takes a config (and runtime options), or an auth")
        self.auth = auth if auth is not None else Auth(config, **runtime)  # type: ignore[arg-type]
        self.app = app
        self.max_body_size = max_body_size
        self.header_limits = header_limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.auth.engine.serves(asgi_raw_path(scope)):
            response = await serve_asgi(
                self.auth, scope, receive, self.max_body_size, self.header_limits
            )
            await send_asgi_response(send, response)
            return
        if scope["type"] == "lifespan":
            receive = closing_on_shutdown(receive, self.auth.aclose)
            if self.app is None:
                await serve_lifespan(receive, send)
                return
        if self.app is not None:
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            await send_asgi_response(send, NOT_FOUND)

    async def serve(self, scope: Scope, receive: Receive) -> Response:
        """The response to an auth route's ASGI request (never raises)."""
        return await serve_asgi(self.auth, scope, receive, self.max_body_size, self.header_limits)


async def serve_asgi(
    auth: Auth,
    scope: Scope,
    receive: Receive,
    max_body_size: int,
    header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
) -> Response:
    """``auth``'s response to an ASGI request for an auth route (never raises): 431 for
    headers over ``header_limits``, 413 for a body over ``max_body_size`` bytes, 400 for a
    bad ``Host``, a logged 500 on failure."""
    if scope["method"] in BODILESS:  # nothing to await: a coroutine less
        request = asgi_request_now(scope, header_limits)
    else:
        request = await asgi_request(scope, receive, max_body_size, header_limits)
    if isinstance(request, Response):
        return request
    return await auth.serve_request(request, scope.get("path", ""))
