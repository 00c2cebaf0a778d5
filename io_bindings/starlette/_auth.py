"""The universal ``auth``: ``await auth(request)``, ``await auth()``, ``@auth``, the FastAPI
dependencies ``session``, ``require_session`` and ``current_user``, and ``sign_in``,
``sign_out`` and ``unstable_update`` for the current request (the runtime's server-side
actions, whose rules are :mod:`sansio_auth.actions`'s, answered the Starlette way)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias, TypeVar, overload

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection
from starlette.responses import Response as StarletteResponse

from sansio_auth.actions import AuthorizationParams

from .. import anyio as _anyio
from ._dependencies import CurrentUser, OptionalSession, RequiredSession, Session
from ._state import StateVar

Options: TypeAlias = Mapping[str, Any] | FormData
"""``sign_in``/``sign_out`` options: a mapping or a submitted form (``await request.form()``)."""
Endpoint = TypeVar("Endpoint", bound=Callable[..., Awaitable[Any]])


class UniversalAuth:
    """``auth``: the session of a request, of the current request, or for an endpoint.

    * ``await auth(request)``: the session (a mapping) or ``None``;
    * ``await auth()``: the same for the request being served behind the middleware,
      ``handlers`` or ``@auth`` (a ``RuntimeError`` outside a request);
    * ``@auth`` on an endpoint: it runs with ``request.auth`` set to the session or
      ``None``, and may call ``auth()``, ``sign_in``... (a raised ``Redirect`` becomes
      its response; cookies set during the request go on the response it returns).

    The session is read once per request.
    """

    def __init__(self, current: StateVar) -> None:
        self.runtimes = current.runtimes
        self.current = current
        self.session = OptionalSession(current)
        """The session of a request or ``None`` (``await auth.session(request)``); a FastAPI
        dependency: ``session = Depends(auth_result.session)``."""
        self.require_session = RequiredSession(current)
        """The session of a request when signed in, otherwise 401 (JSON under FastAPI); a
        FastAPI dependency for API routes: ``Depends(auth_result.require_session)``."""
        self.current_user = CurrentUser(current)
        """The signed-in user as the store keeps it (your SQLAlchemy model's instance, or the
        store's record), otherwise 401; a FastAPI dependency:
        ``user = Depends(auth_result.current_user)``. Needs a store."""

    @overload
    def __call__(self) -> Awaitable[Session | None]: ...
    @overload
    def __call__(self, request: HTTPConnection, /) -> Awaitable[Session | None]: ...
    @overload
    def __call__(self, endpoint: Endpoint, /) -> Endpoint: ...
    def __call__(self, target: Any = None) -> Any:
        if target is None:
            return self._current_session()
        if isinstance(target, HTTPConnection):
            return self.session(target)
        if callable(target):
            return self._wrap(target)
        raise TypeError(f"auth() takes a request or an endpoint, not {type(target).__name__}")

    async def _current_session(self) -> Session | None:
        session: Session | None = await self.current.get().session()
        return session

    async def access_token(
        self, request: HTTPConnection | None = None, *, provider: str
    ) -> str | None:
        """A valid access token of ``provider`` for the session (refreshed if due), or
        ``None`` (signed out, no token of that provider, refresh refused): of ``request``,
        or of the current request. A refresh re-issues the session cookie: it goes on the
        response behind the middleware, ``handlers`` or ``@auth``."""
        state = self.current.get() if request is None else await self.current.state_for(request)
        return await state.access_token(provider)

    async def revoke_sessions(
        self,
        *,
        user_id: str | None = None,
        sid: str | None = None,
        request: HTTPConnection | None = None,
    ) -> int:
        """End the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere"); see
        :meth:`io_bindings.anyio.Auth.revoke_sessions`. The runtime is that of ``request``,
        else of the current request, else of the fixed config (a config function needs one
        of the first two)."""
        return await (await self.runtime(request)).revoke_sessions(user_id=user_id, sid=sid)

    async def runtime(self, request: HTTPConnection | None = None) -> _anyio.Auth:
        """The runtime of ``request``, else of the current request, else of the fixed config."""
        if request is not None:
            return (await self.current.state_for(request)).runtime
        state = self.current.var.get()
        if state is not None:
            return state.runtime
        return self.runtimes.fixed_runtime(
            RuntimeError(
                "sansio-auth: HostAuth has a config function: call this inside a request, "
                "or pass the request"
            )
        )

    async def sign_in(
        self,
        provider: str | None = None,
        options: Options | None = None,
        authorization_params: AuthorizationParams | None = None,
    ) -> str:
        """Sign in with ``provider`` (``None``: the sign-in page), as Auth.js's ``signIn``
        (:meth:`sansio_auth.Engine.sign_in`: ``options`` are ``redirect``, ``redirectTo``
        and the provider's fields). Raises :class:`Redirect` to where the browser goes, or
        returns that URL with ``redirect=False``; 403 for a cross-site post;
        :class:`Refused` over a rate limit (``429``, ``Retry-After``). A failed sign-in raises
        its :class:`~sansio_auth.AuthError` (``CredentialsSignin`` with its ``code``); let
        through, either is answered as the engine answers it."""
        state = self.current.get()
        return state.answer(await state.sign_in(provider, options, authorization_params))

    async def sign_out(self, options: Options | None = None) -> str:
        """Sign out (the session cookie cleared, the database session deleted), answered as
        :meth:`sign_in` (``options``: ``redirect``, ``redirectTo``)."""
        state = self.current.get()
        return state.answer(await state.sign_out(options))

    async def unstable_update(self, data: Mapping[str, Any]) -> Any:
        """Update the session with ``data`` (:meth:`sansio_auth.Engine.update_session`): the
        new session (``None`` when signed out), its cookie for the response."""
        read = await self.current.get().update(data)
        if read.status != 200:
            raise HTTPException(read.status, detail=read.body.decode())
        return read.data

    def _wrap(self, endpoint: Endpoint) -> Endpoint:
        @functools.wraps(endpoint)
        async def with_auth(*args: Any, **kwargs: Any) -> Any:
            found = [a for a in (*args, *kwargs.values()) if isinstance(a, HTTPConnection)]
            if not found:
                raise TypeError(f"@auth: {endpoint.__name__} was called without a request")
            request = found[0]
            state = await self.current.state_for(request)
            token = self.current.var.set(state)
            try:
                request.scope["auth"] = await state.session()
                try:
                    result: Any = endpoint(*args, **kwargs)
                    if inspect.isawaitable(result):
                        result = await result
                except Exception as error:
                    if (result := state.response_for(error)) is None:
                        raise
            finally:
                self.current.var.reset(token)
            if isinstance(result, StarletteResponse):
                result.raw_headers.extend(state.set_cookie_headers())
            return result

        return with_auth  # type: ignore[return-value]
