"""The sync runtime: the engine's sync driver, no event loop of its own.

:class:`SyncAuth` is :class:`io_bindings.anyio.Auth` for synchronous servers (WSGI,
threads): the same engine and the same rules for answering actions
(:func:`sansio_auth.drivers.sync_performer`), with outbound HTTP sent by the bindings'
h11 client on blocking sockets (:class:`~io_bindings.http.HTTPClient` over the blocking
backend: one client code, run without a loop, one per thread).

Sync callbacks and adapter methods run in the calling thread. An ``async def`` callback
or an async adapter (every ``io_bindings.db`` adapter) runs on one process-wide
background loop (:mod:`io_bindings._loop`) so its pools live on a single loop.

>>> auth = SyncAuth(config)
>>> response = auth.respond(request)      # None when not an auth route
"""

from __future__ import annotations

import contextvars
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from sansio_auth import AuthConfig, Flow, NotAnAuthRoute, Request, Response
from sansio_auth.actions import ActionResult, AuthorizationParams, AuthorizedResult
from sansio_auth.drivers import SyncSendHTTP, sync_performer
from sansio_auth.events import (
    Action,
    Event,
    Failed,
    HTTPResponse,
    OutboundRequest,
    VerifyPassword,
)
from sansio_auth.oauth.cache import ProviderCache

from ._deadlines import Budget, Deadline, deadline_of, outcome
from ._driver_io import log_writer
from ._loop import wait
from ._runtime import AccessToken, Call, Runtime, SessionRead, T
from ._single_flight import ThreadSingleFlight, key_of
from .http import HTTPClient
from .http._blocking import BlockingBackend, run_blocking
from .self_service import Change, LinkedAccount, UserSession, accounts_of, change_of, sessions_of
from .translate import NOT_FOUND, server_error

__all__ = ["BlockingHTTP", "SyncAuth"]

_DEADLINE: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar(
    "sansio_auth_deadline", default=None
)
"""The deadline of the action this thread is performing (for the awaitable it may return)."""


def _wait_within_deadline(awaitable: Awaitable[Any]) -> Any:
    """Run ``awaitable`` on the background loop, cancelled at the current action's deadline."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return wait(awaitable)
    try:
        return wait(awaitable, timeout=deadline.seconds)
    except TimeoutError as err:
        raise _Cut() from err


class _Cut(TimeoutError):
    """An awaitable cancelled at its action's deadline."""


class BlockingHTTP:
    """Sends the engine's HTTP requests from sync code: an :class:`HTTPClient` per thread
    on the blocking backend (a pool is never shared between threads)."""

    def __init__(self, env: Mapping[str, str] | None = None, **client_options: Any) -> None:
        self._env = env
        self._options = client_options
        self._local = threading.local()
        self._clients: list[HTTPClient] = []

    def client(self) -> HTTPClient:
        """This thread's client."""
        client: HTTPClient | None = getattr(self._local, "client", None)
        if client is None:
            client = HTTPClient(BlockingBackend(), proxy_env=self._env, **self._options)
            self._local.client = client
            self._clients.append(client)
        return client

    def send(self, request: OutboundRequest) -> HTTPResponse:
        """Send ``request``; raises :class:`~io_bindings.http.HTTPError` on failure."""
        return run_blocking(self.client().send(request))

    def close(self) -> None:
        """Close every thread's idle connections."""
        for client in self._clients:
            run_blocking(client.aclose())


class SyncAuth(Runtime):
    """The runtime for sync servers: engine, clock, entropy, cache, blocking HTTP.

    The twin of :class:`io_bindings.anyio.Auth` (the same calls, driven by the sync
    driver). ``send_http`` replaces the default :class:`BlockingHTTP` (a function from
    :class:`~sansio_auth.events.OutboundRequest` to
    :class:`~sansio_auth.events.HTTPResponse`).
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], bytes] = secrets.token_bytes,
        cache: ProviderCache | None = None,
        send_http: SyncSendHTTP | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(config, clock=clock, entropy=entropy, cache=cache, env=env)
        self.http: BlockingHTTP | None = None
        if send_http is None:
            self.http = BlockingHTTP(self.env)
            send_http = self.http.send
        self._perform = sync_performer(
            send_http=send_http, log=log_writer(self.settings.debug), wait=_wait_within_deadline
        )
        self._single_flight = ThreadSingleFlight(clock)

    def perform(self, action: Action, budget: Budget | None = None) -> Event:
        """Perform one action (exceptions become :class:`~sansio_auth.events.Failed`) within
        its deadline (see :mod:`io_bindings._deadlines`: an awaitable is cancelled at it, a
        sync function fails when it returns late); actions marked ``single_flight`` go one
        at a time per key, sharing the answer."""
        deadline = deadline_of(
            self.settings.deadlines, action, None if budget is None else budget.left()
        )
        if deadline is None:
            return self._perform_now(action)
        if deadline.seconds <= 0 and budget is not None:
            return budget.report()
        begun = time.monotonic()
        bound = _DEADLINE.set(deadline)
        try:
            event = self._perform_now(action)
        finally:
            _DEADLINE.reset(bound)
        cut = isinstance(event, Failed) and isinstance(event.error, _Cut)
        return outcome(action, None if cut else event, time.monotonic() - begun, deadline, budget)

    def _perform_now(self, action: Action) -> Event:
        key = key_of(action)
        if key is not None:
            return self._single_flight.run(key, lambda: self._perform(action))
        if isinstance(action, VerifyPassword):  # a failure lasts as long as the costliest check
            began = time.perf_counter()
            event = self._perform(action)
            hold = self.password_checks.hold(action, event, time.perf_counter() - began)
            if hold > 0:
                time.sleep(hold)
            return event
        return self._perform(action)

    def drive(self, flow: Flow) -> Response:
        """Drive ``flow`` to its response, each action within its deadline and the whole
        within the flow's (:attr:`~sansio_auth.Flow.deadline`)."""
        if flow.deadline is None:
            return flow.run_sync(self.perform)
        budget = Budget(flow.deadline, time.monotonic)
        return flow.run_sync(lambda action: self.perform(action, budget))

    def run(self, call: Call[T]) -> T:
        """Drive ``call``'s flow (:meth:`drive`) and make its result."""
        return call.result(self.drive(call.flow))

    def respond(self, request: Request) -> Response | None:
        """The response to ``request``, or ``None`` when it is not an auth route (a route
        the engine answered at once, as most session reads, is not driven)."""
        served = self._answer(request)
        if isinstance(served, Flow):
            served = self.drive(served)
        return None if isinstance(served, NotAnAuthRoute) else served

    def serve_request(self, request: Request, where: str) -> Response:
        """:meth:`respond` for a server (never raises): a logged 500 naming ``where`` on
        failure, 404 when it is no auth route after all."""
        try:
            response = self.respond(request)
        except Exception:
            return server_error(where)
        return NOT_FOUND if response is None else response

    def session(self, request: Request) -> SessionRead:
        """The session of the browser that sent ``request``, with the cookies to set."""
        read = self.engine.session_now(request)
        return read if read is not None else self.run(self.session_call(request))

    def sign_in(
        self,
        request: Request,
        provider: str | None = None,
        options: Mapping[str, Any] | None = None,
        authorization_params: AuthorizationParams | None = None,
        *,
        form_post: bool = False,
    ) -> ActionResult:
        """Sign in the browser that sent ``request``, as :meth:`io_bindings.anyio.Auth.sign_in`."""
        return self.run(
            self.sign_in_call(request, provider, options, authorization_params, form_post)
        )

    def sign_out(
        self, request: Request, options: Mapping[str, Any] | None = None, *, form_post: bool = False
    ) -> ActionResult:
        """Sign out ``request``'s browser, as :meth:`io_bindings.anyio.Auth.sign_out`."""
        return self.run(self.sign_out_call(request, options, form_post))

    def update_session(self, request: Request, data: Any) -> SessionRead:
        """Update the session of ``request``'s browser with ``data``, as
        :meth:`io_bindings.anyio.Auth.update_session`."""
        return self.run(self.update_session_call(request, data))

    def authorized(self, request: Request, framework_request: Any) -> AuthorizedResult:
        """The ``authorized`` callback's decision, as :meth:`io_bindings.anyio.Auth.authorized`."""
        return self.run(self.authorized_call(request, framework_request))

    def get_token(self, request: Request, *, raw: bool = False) -> Any:
        """Auth.js's ``getToken`` on this configuration, as
        :meth:`io_bindings.anyio.Auth.get_token`."""
        return self.run(self.get_token_call(request, raw))

    def access_token(self, request: Request, *, provider: str) -> AccessToken:
        """The access token of ``provider`` for the session of ``request``, refreshed if due
        (concurrent refreshes of one token share one token-endpoint call), and the cookies
        the response to the browser must carry."""
        return self.run(self.access_token_call(request, provider))

    def start_session(self, request: Request, user: Mapping[str, Any]) -> SessionRead:
        """A new session for ``user`` in ``request``'s browser, as
        :meth:`io_bindings.anyio.Auth.start_session`."""
        return self.run(self.start_session_call(request, user))

    def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> int:
        """End the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere"), as
        :meth:`io_bindings.anyio.Auth.revoke_sessions`."""
        return self.run(self.revoke_sessions_call(user_id, sid))

    # -- accounts (not in Auth.js): as io_bindings.anyio.Auth's -----------------------------

    def create_password_user(
        self, email: str, password: str, *, name: str | None = None, verified: bool = False
    ) -> dict[str, Any]:
        """Create a user with ``email`` and ``password``, as
        :meth:`io_bindings.anyio.Auth.create_password_user`."""
        return self.run(self.create_password_user_call(email, password, name, verified))

    def set_password(self, user_id: str, password: str) -> None:
        """Set the password of ``user_id``."""
        self.run(self.set_password_call(user_id, password))

    def two_factor_status(self, user_id: str) -> dict[str, Any]:
        """``{"enabled": bool, "recovery_codes_left": int}`` of ``user_id``."""
        return self.run(self.two_factor_status_call(user_id))

    def reset_two_factor(self, user_id: str) -> bool:
        """Remove the second factor of ``user_id``; whether they had one."""
        return self.run(self.reset_two_factor_call(user_id))

    # -- a user's own sessions and accounts (io_bindings.self_service), as Auth's ----------

    def list_sessions(self, request: Request) -> list[UserSession]:
        """See :meth:`io_bindings.anyio.Auth.list_sessions`."""
        return self.run(self.account_call(request, "list-sessions", sessions_of))

    def revoke_session(self, request: Request, session_id: str) -> Change:
        """See :meth:`io_bindings.anyio.Auth.revoke_session`."""
        return self.run(self.account_call(request, "revoke-session", change_of, id=session_id))

    def revoke_other_sessions(self, request: Request) -> Change:
        """See :meth:`io_bindings.anyio.Auth.revoke_other_sessions`."""
        return self.run(self.account_call(request, "revoke-other-sessions", change_of))

    def list_accounts(self, request: Request) -> list[LinkedAccount]:
        """See :meth:`io_bindings.anyio.Auth.list_accounts`."""
        return self.run(self.account_call(request, "list-accounts", accounts_of))

    def unlink_account(
        self, request: Request, provider: str, provider_account_id: str | None = None
    ) -> Change:
        """See :meth:`io_bindings.anyio.Auth.unlink_account`."""
        call = self.account_call(
            request,
            "unlink-account",
            change_of,
            provider=provider,
            providerAccountId=provider_account_id,
        )
        return self.run(call)

    def delete_user(self, request: Request) -> Change:
        """See :meth:`io_bindings.anyio.Auth.delete_user`."""
        return self.run(self.account_call(request, "delete-user", change_of))

    def close(self) -> None:
        """Close the default HTTP client's idle connections."""
        if self.http is not None:
            self.http.close()
