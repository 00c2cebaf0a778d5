"""sansio-auth for Starlette and FastAPI: ``HostAuth``.

>>> from io_bindings.starlette import HostAuth
>>> auth_result = HostAuth(config)          # or HostAuth(lambda request: config), sync or async
>>> handlers, auth, sign_in, sign_out, unstable_update = auth_result
>>> app.mount("/api/auth", handlers)        # FastAPI; Starlette: Mount("/api/auth", app=handlers)
>>> app.add_middleware(auth_result.middleware)   # optional: `authorized`, cookie refresh, auth()
>>> auth_result.add_to_openapi(app)          # FastAPI: the auth routes in /openapi.json, /docs

Runs on asyncio and trio. See ``docs/adapters/starlette.md``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

from sansio_auth import AuthConfig
from sansio_auth.actions import AuthorizationParams
from sansio_auth.settings import is_production

from ..translate import DEFAULT_HEADER_LIMITS, DEFAULT_MAX_BODY_SIZE, HeaderLimits
from ._asgi import Handlers, HostAuthMiddleware, starlette_response
from ._auth import Options, UniversalAuth
from ._dependencies import CurrentUser, OptionalSession, RequiredSession, Session
from ._openapi import add_auth_routes
from ._runtime import DEFAULT_BASE_PATH, LazyConfig, Runtimes
from ._state import Redirect, Refused, StateVar

HostAuthConfig = AuthConfig
"""The config record (the same :class:`~sansio_auth.AuthConfig`)."""


class HostAuthResult(NamedTuple):
    """What :func:`HostAuth` returns; unpacks to
    ``handlers, auth, sign_in, sign_out, unstable_update``."""

    handlers: Handlers
    """The ASGI app serving every route under ``base_path``; ``.GET``/``.POST`` endpoints."""
    auth: UniversalAuth
    """``await auth(request)``, ``await auth()``, ``@auth``."""
    sign_in: Callable[..., Awaitable[str]]
    """``await sign_in(provider=None, options=None, authorization_params=None)``."""
    sign_out: Callable[..., Awaitable[str]]
    """``await sign_out(options=None)``."""
    unstable_update: Callable[[Mapping[str, Any]], Awaitable[Any]]
    """``await unstable_update(data)``: the new session."""

    @property
    def middleware(self) -> type[HostAuthMiddleware]:
        """The ASGI middleware class: ``app.add_middleware(auth_result.middleware)``."""
        return self.handlers.middleware

    @property
    def session(self) -> OptionalSession:
        """FastAPI dependency: the session or ``None`` (``Depends(auth_result.session)``)."""
        return self.auth.session

    @property
    def require_session(self) -> RequiredSession:
        """FastAPI dependency: the session, or 401 JSON when signed out."""
        return self.auth.require_session

    @property
    def current_user(self) -> CurrentUser:
        """FastAPI dependency: the signed-in user as the store keeps it (with SQLAlchemy, an
        instance of your ``User`` model; another store's record), or 401 JSON."""
        return self.auth.current_user

    def add_to_openapi(self, app: Any) -> None:
        """List the auth routes in the FastAPI ``app``'s OpenAPI document (``/openapi.json``,
        Swagger UI's ``/docs``), under the path ``handlers`` is mounted at in ``app``: their
        methods, bodies (form or JSON) and answers, from the engine's route table."""
        add_auth_routes(app, self.handlers)

    @property
    def access_token(self) -> Callable[..., Awaitable[str | None]]:
        """:meth:`UniversalAuth.access_token`: ``await auth_result.access_token(provider="op")``."""
        return self.auth.access_token

    @property
    def revoke_sessions(self) -> Callable[..., Awaitable[int]]:
        """:meth:`UniversalAuth.revoke_sessions` ("sign out everywhere")."""
        return self.auth.revoke_sessions

    async def aclose(self) -> None:
        """Close the runtimes' HTTP connections (the middleware does it on lifespan shutdown)."""
        await self.handlers.runtimes.aclose()


def HostAuth(  # noqa: N802 - a constructor-like entry point
    config: AuthConfig | LazyConfig,
    *,
    max_body_size: int = DEFAULT_MAX_BODY_SIZE,
    header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
    env: Mapping[str, str] | None = None,
    **runtime: Any,
) -> HostAuthResult:
    """``handlers, auth, sign_in, sign_out, unstable_update = HostAuth(config)``.

    ``config`` is an :class:`~sansio_auth.AuthConfig`, or a function of the request
    (sync or ``async``) returning one, called for every request; one engine is kept per
    config object it returns (the 32 most recent). The engine is built at the first
    request, so a bad config (or, in production, a missing ``AUTH_SECRET``) fails that
    request. What the config leaves out comes from ``env`` (default ``os.environ``), then
    the Starlette defaults (:func:`sansio_auth.settings.framework_defaults`: ``base_path``
    ``/api/auth``; outside production a trusted ``Host`` and a random per-process secret,
    with a warning). ``runtime`` options go to :class:`io_bindings.anyio.Auth`. Request
    bodies over ``max_body_size`` bytes get 413, headers over ``header_limits`` (64 KiB,
    100 lines by default) 431.
    """
    current = StateVar(Runtimes(config, env, runtime))
    auth = UniversalAuth(current)
    handlers = Handlers(current, max_body_size, header_limits)
    return HostAuthResult(handlers, auth, auth.sign_in, auth.sign_out, auth.unstable_update)


__all__ = [
    "DEFAULT_BASE_PATH",
    "AuthorizationParams",
    "CurrentUser",
    "Handlers",
    "HostAuth",
    "HostAuthConfig",
    "HostAuthMiddleware",
    "HostAuthResult",
    "LazyConfig",
    "OptionalSession",
    "Options",
    "Redirect",
    "Refused",
    "RequiredSession",
    "Session",
    "UniversalAuth",
    "is_production",
    "starlette_response",
]
