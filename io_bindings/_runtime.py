"""What the async and sync runtimes share: the engine, the start-up warnings, and each
server-side call as one :class:`Call` (the engine's flow and what to make of its answer).

:class:`io_bindings.anyio.Auth` drives a call with ``await flow.run(perform)``,
:class:`io_bindings.sync.SyncAuth` with ``flow.run_sync(perform)``: nothing else differs
(httpx's shape: one flow, two small drivers), so the twins cannot drift.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sansio_auth import (
    AuthConfig,
    AuthError,
    Engine,
    Flow,
    NotAnAuthRoute,
    Request,
    Response,
)
from sansio_auth.actions import (
    ActionResult,
    AuthorizationParams,
    AuthorizedResult,
    SessionResult,
    TokenResult,
)
from sansio_auth.drivers import sync_performer
from sansio_auth.oauth.cache import ProviderCache

from ._driver_io import log_writer
from ._password_timing import PasswordCheckTimes
from .db.memory import MemoryCounters

T = TypeVar("T")
R = TypeVar("R", bound=Response)
logger = logging.getLogger("sansio_auth")

SessionRead = SessionResult
"""A session read on the server side: ``data`` (the session mapping, or ``None`` when
signed out) and ``cookies``, those the engine re-issued while reading it (a slid expiry, a
refreshed token), which the response to the browser must carry (``set_cookie_headers()``)."""


AccessToken = TokenResult
"""A provider access token for the server to call the provider's API with (``token``, or
``None``: signed out, no such provider, expired), and the cookies the session read
re-issued (a refreshed token is in the JWT session cookie: the response to the browser must
carry them, or the rotated refresh token is lost)."""


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One server-side call: the engine's flow, and its result from the flow's response."""

    flow: Flow
    result: Callable[[Response], T]


class Runtime:
    """The part of a runtime that does not depend on how flows are driven.

    ``env`` defaults to ``os.environ``; the configuration's start-up warnings (a short
    secret, CSRF checks off...) are logged here, once per runtime. Rate-limit counters are
    kept in process memory unless ``rate_limits.store`` or the adapter keeps them. A failed
    password check is answered no sooner than the costliest kind of check this process has
    timed (:mod:`io_bindings._password_timing`): no answer time tells that an account exists.
    """

    def __init__(
        self,
        config: AuthConfig,
        *,
        clock: Callable[[], float],
        entropy: Callable[[int], bytes],
        cache: ProviderCache | None,
        env: Mapping[str, str] | None,
    ) -> None:
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.engine = Engine(
            config,
            clock=clock,
            entropy=entropy,
            env=self.env,
            cache=cache,
            counters=MemoryCounters(),  # the rate limits' unless the config keeps them elsewhere
        )
        self.settings = self.engine.settings
        self.password_checks = PasswordCheckTimes()
        """What password checks cost in this process; a failed one waits for the costliest
        kind (see :mod:`io_bindings._password_timing`)."""
        for code in self.settings.warnings:
            logger.warning("[auth][warn][%s] Read more: https://warnings.authjs.dev", code)

    def _answer(self, request: Request) -> Response | Flow | NotAnAuthRoute:
        """The engine's answer to a request a server was sent: a response, a flow to drive,
        or :data:`~sansio_auth.NOT_AN_AUTH_ROUTE` (what a recording runtime records)."""
        return self.engine.response_or_flow(request)

    def serves(self, raw_path: str) -> bool:
        """Whether ``raw_path`` (percent-encoded, as sent) is an auth route."""
        return self.engine.serves(raw_path)

    def session_call(self, request: Request) -> Call[SessionRead]:
        """Read the session of the browser that sent ``request``."""
        return Call(self.engine.session(request), _expecting(SessionResult))

    def update_session_call(self, request: Request, data: Any) -> Call[SessionRead]:
        """Update the session of ``request``'s browser with ``data``."""
        return Call(self.engine.update_session(request, data), _expecting(SessionResult))

    def sign_in_call(
        self,
        request: Request,
        provider: str | None,
        options: Mapping[str, Any] | None,
        authorization_params: AuthorizationParams | None,
        form_post: bool,
    ) -> Call[ActionResult]:
        """Sign in ``request``'s browser with ``provider``."""
        flow = self.engine.sign_in(
            request, provider, options, authorization_params, form_post=form_post
        )
        return Call(flow, _expecting(ActionResult))

    def sign_out_call(
        self, request: Request, options: Mapping[str, Any] | None, form_post: bool
    ) -> Call[ActionResult]:
        """Sign out ``request``'s browser."""
        flow = self.engine.sign_out(request, options, form_post=form_post)
        return Call(flow, _expecting(ActionResult))

    def authorized_call(self, request: Request, framework_request: Any) -> Call[AuthorizedResult]:
        """The ``authorized`` callback's decision for ``request``."""
        flow = self.engine.authorized(request, framework_request)
        return Call(flow, _expecting(AuthorizedResult))

    def access_token_call(self, request: Request, provider: str) -> Call[AccessToken]:
        """The access token of ``provider`` for the session of ``request``."""
        return Call(self.engine.access_token(request, provider), _expecting(TokenResult))

    def get_token_call(self, request: Request, raw: bool) -> Call[Any]:
        """Auth.js's ``getToken`` for ``request`` on this configuration."""
        return Call(self.engine.get_token(request, raw=raw), _token)

    def csrf_token(self, request: Request) -> TokenResult:
        """The library's CSRF token for the forms of the page ``request`` asks for (``token``
        ``None`` when CSRF checks are off) and its cookie for the response. Its flow performs
        no IO (a log line at most), so it runs here, in any thread or event loop."""
        perform = sync_performer(log=log_writer(self.settings.debug))
        return _expecting(TokenResult)(self.engine.csrf_token(request).run_sync(perform))

    def start_session_call(self, request: Request, user: Mapping[str, Any]) -> Call[SessionRead]:
        """Start a session for ``user`` in ``request``'s browser (no provider asked)."""
        return Call(self.engine.start_session(request, user), _expecting(SessionResult))

    def revoke_sessions_call(self, user_id: str | None, sid: str | None) -> Call[int]:
        """End the sessions of ``user_id`` and/or ``sid``."""
        return Call(self.engine.revoke_sessions(user_id=user_id, sid=sid), _revoked_count)

    def account_call(
        self,
        request: Request,
        operation: str,
        result: Callable[[Response], T],
        **params: str | None,
    ) -> Call[T]:
        """One of the user's own operations (``list-sessions``, ... see
        :mod:`io_bindings.self_service`) for the browser that sent ``request``."""
        return Call(self.engine.account_operation(request, operation, params), result)

    # -- accounts (not in Auth.js; docs/accounts.md) ----------------------------------------

    def create_password_user_call(
        self, email: str, password: str, name: str | None, verified: bool
    ) -> Call[dict[str, Any]]:
        """Create a user with a password; the user as stored."""
        flow = self.engine.account(
            "create_user", email=email, password=password, name=name, verified=verified
        )
        return Call(flow, lambda response: dict(_account_result(response)["user"]))

    def set_password_call(self, user_id: str, password: str) -> Call[None]:
        """Set a user's password."""
        flow = self.engine.account("set_password", user_id=user_id, password=password)
        return Call(flow, _no_result)

    def two_factor_status_call(self, user_id: str) -> Call[dict[str, Any]]:
        """A user's second factor: ``{"enabled", "recovery_codes_left"}``."""
        return Call(self.engine.account("two_factor_status", user_id=user_id), _account_result)

    def reset_two_factor_call(self, user_id: str) -> Call[bool]:
        """Remove a user's second factor; whether they had one."""
        flow = self.engine.account("reset_two_factor", user_id=user_id)
        return Call(flow, lambda response: bool(_account_result(response)["reset"]))


def _account_result(response: Response) -> dict[str, Any]:
    """The answer of an account operation; :class:`ValueError` for refused input,
    :class:`RuntimeError` naming the cause for a failure."""
    body = response.json()
    if response.status == 400:
        raise ValueError(body["error"])
    if response.status != 200:
        raise RuntimeError(f"the account operation failed: {body.get('message')}")
    return dict(body)


def _no_result(response: Response) -> None:
    """Raise as :func:`_account_result` does; nothing else to say."""
    _account_result(response)


def _expecting(kind: type[R]) -> Callable[[Response], R]:
    """The result of an engine entry point that answers ``kind``; its failure (the engine
    logged it) is an :class:`~sansio_auth.AuthError` naming the cause."""

    def result(response: Response) -> R:
        if isinstance(response, kind):
            return response
        raise AuthError(f"the engine failed to answer: {response.json().get('message')}")

    return result


def _token(response: Response) -> Any:
    """The token of the engine's answer to ``get_token`` (``None`` when it failed: logged)."""
    return response.json()["token"] if response.status == 200 else None


def _revoked_count(response: Response) -> int:
    if response.status != 200:
        raise RuntimeError(f"the sessions could not be revoked: {response.json()['message']}")
    return int(response.json()["deleted"])
