"""``handle`` (the middleware serving the auth routes and setting ``request.auth()``),
``protect_prefix``, ``sequence`` and ``auth_required``.

Each hook is written once, as a generator (:data:`HookFlow`) that yields what it needs run:
:data:`NEXT` (the rest of the chain, or the view) or a function of no arguments returning an
awaitable for the runtime's loop; :func:`run_sync` and :func:`run_async` drive it in a sync
or an async chain (the engine's shape: one flow, two drivers).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Generator
from functools import wraps
from typing import Any, TypeAlias, TypeVar, overload

from asgiref.sync import async_to_sync, iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured, PermissionDenied, RequestDataTooBig
from django.http import HttpRequest, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import resolve_url

from sansio_auth.authorized import sign_in_redirect, signed_in

from .. import anyio as _anyio
from .._state import AuthState
from ..runtimes import ConfigSource
from ..translate import (
    BODY_TOO_LARGE,
    DEFAULT_HEADER_LIMITS,
    DEFAULT_MAX_BODY_SIZE,
    HEADERS_TOO_LARGE,
    HeaderLimits,
)
from ..translate import too_large as _too_large
from . import _bridge
from ._translate import add_cookies, django_response, engine_request, raw_path

GetResponse: TypeAlias = Callable[[HttpRequest], Any]
"""Django's ``get_response``: sync (returns the response) or async (a coroutine of it)."""
View = TypeVar("View", bound=Callable[..., Any])
NEXT: Any = object()
"""What a hook flow yields to get the response of the rest of the chain."""
HookFlow: TypeAlias = Generator[Any, Any, HttpResponseBase | None]


def _no_next(request: HttpRequest) -> Any:
    raise TypeError("this flow has no next handler")


def run_sync(flow: HookFlow, request: HttpRequest, next_: GetResponse = _no_next) -> Any:
    """Drive ``flow`` in sync code (the runtime's work on its loop)."""
    value = None
    while True:
        try:
            step = flow.send(value)
        except StopIteration as done:
            return done.value
        value = next_(request) if step is NEXT else _bridge.run(request, step)


async def run_async(flow: HookFlow, request: HttpRequest, next_: GetResponse = _no_next) -> Any:
    """Drive ``flow`` in async code."""
    value = None
    while True:
        try:
            step = flow.send(value)
        except StopIteration as done:
            return done.value
        value = await next_(request) if step is NEXT else await _bridge.arun(request, step)


class RequestAuth:
    """``request.auth``: the runtime serving this request, and the session, read lazily.

    Call it for the session (a mapping, or ``None`` when signed out): ``await
    request.auth()`` in async code, ``request.auth()`` in sync code (whether the calling
    thread runs an event loop decides). Read once per request; the cookies the engine sets
    go on the response. The other methods answer the same way: awaitable in async code.
    """

    def __init__(self, request: HttpRequest, runtime: _anyio.Auth) -> None:
        self.request = request
        self.runtime = runtime
        self.state = AuthState(runtime, lambda: engine_request(request))
        """The request's auth state (session, cookies for the response)."""
        self._csrf_token: str | None = None

    def __call__(self) -> Any:
        return self._run(self._session)

    def session(self) -> Any:
        """The session, from sync code."""
        return run_sync(self._session(), self.request)

    async def asession(self) -> Any:
        """The session, from async code."""
        return await run_async(self._session(), self.request)

    def _session(self) -> HookFlow:
        if not self.state.read_now():
            yield self.state.session
        return self.state.data  # type: ignore[no-any-return]

    def _run(self, flow: Callable[[], HookFlow]) -> Any:
        """``flow()`` driven by the driver of the calling thread."""
        run = run_async if _bridge.in_event_loop() else run_sync
        return run(flow(), self.request)

    def access_token(self, provider: str) -> Any:
        """A valid access token of ``provider`` for this request's session (refreshed if
        due), or ``None``: ``await request.auth.access_token("op")`` in async code."""
        return self._run(lambda: (yield lambda: self.state.access_token(provider)))

    def update(self, data: Any) -> Any:
        """Update the session with ``data`` (:meth:`sansio_auth.Engine.update_session`): the
        new session (``None`` when signed out); ``PermissionDenied`` for a cross-site post."""
        return self._run(lambda: self._update(data))

    def _update(self, data: Any) -> HookFlow:
        read = yield lambda: self.state.update(data)
        if read.status != 200:
            raise PermissionDenied(read.body.decode())
        return read.data  # type: ignore[no-any-return]

    def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> Any:
        """End the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere"): the
        number of database sessions deleted (:meth:`io_bindings.anyio.Auth.revoke_sessions`)."""
        revoke = self.runtime.revoke_sessions
        return self._run(lambda: (yield lambda: revoke(user_id=user_id, sid=sid)))

    def csrf_token(self) -> str:
        """The library's CSRF token for forms on this page (its cookie goes on the response);
        made without IO, so safe in any thread, event loop or not."""
        if self._csrf_token is None:
            found = self.runtime.csrf_token(self.state.request())
            self.state.add_cookies(found.cookies)
            self._csrf_token = found.token or ""
        return self._csrf_token


class AuthHttpRequest(HttpRequest):
    """For annotations only: a request that passed the auth ``handle``
    (``def view(request: AuthHttpRequest)`` types ``request.auth()``)."""

    auth: RequestAuth


def request_auth(request: HttpRequest) -> RequestAuth:
    """The :class:`RequestAuth` that ``handle`` set, or ``ImproperlyConfigured``."""
    state = getattr(request, "auth", None)
    if not isinstance(state, RequestAuth):
        raise ImproperlyConfigured(
            "sansio-auth: request.auth is not set; add the auth `handle` to MIDDLEWARE "
            "(before protect_prefix and any view that uses it)"
        )
    return state


class Hook:
    """A Django middleware factory (``sync_capable = async_capable = True``) running
    ``flow``: put it in ``MIDDLEWARE`` by dotted path, or combine several with
    :func:`sequence`."""

    sync_capable = True
    async_capable = True

    def __init__(self, flow: Callable[[HttpRequest], HookFlow] | None = None) -> None:
        self._flow = flow

    def __call__(self, get_response: GetResponse) -> Callable[[HttpRequest], Any]:
        is_async = iscoroutinefunction(get_response)
        run = run_async if is_async else run_sync

        def middleware(request: HttpRequest) -> Any:
            return run(self.flow(request), request, get_response)

        return markcoroutinefunction(middleware) if is_async else middleware

    def flow(self, request: HttpRequest) -> HookFlow:
        """What the hook does with ``request`` (see :data:`HookFlow`)."""
        assert self._flow is not None
        return self._flow(request)


class Handle(Hook):
    """The auth ``handle``: serves every route under ``base_path`` and sets
    ``request.auth`` (:class:`RequestAuth`) for the rest, whose response gets the cookies
    the engine set during the request. Request bodies over ``max_body_size`` bytes get 413,
    headers over ``header_limits`` 431."""

    def __init__(
        self,
        runtimes: ConfigSource,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
    ) -> None:
        self.runtimes = runtimes
        self.max_body_size = max_body_size
        self.header_limits = header_limits

    def flow(self, request: HttpRequest) -> HookFlow:
        found = self.runtimes.resolve(request)
        runtime = (yield lambda: found) if inspect.isawaitable(found) else found
        if runtime.serves(raw_path(request)):
            if not self.header_limits.allow(request.headers.items()):
                return django_response(HEADERS_TOO_LARGE)
            body = self._body(request)
            if body is None:
                return django_response(BODY_TOO_LARGE)
            make = functools.partial(engine_request, request, body)
            return django_response((yield lambda: runtime.serve(make, request.path)))
        auth = RequestAuth(request, runtime)
        request.auth = auth  # type: ignore[attr-defined]
        response: HttpResponseBase = yield NEXT
        add_cookies(response, auth.state.take_cookies())
        return response

    def _body(self, request: HttpRequest) -> bytes | None:
        """The request body, or ``None`` when it is over ``max_body_size`` bytes."""
        if _too_large(request.META.get("CONTENT_LENGTH"), self.max_body_size):
            return None
        try:
            body = request.body
        except RequestDataTooBig:
            return None
        return None if len(body) > self.max_body_size else body

    async def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> int:
        """End the sessions of ``user_id`` and/or ``sid`` outside a request (a management
        command, a task): the fixed config's runtime, on the caller's event loop. In a view,
        use ``request.auth.revoke_sessions(...)``."""
        if self.runtimes.fixed is None:
            raise ImproperlyConfigured(
                "sansio-auth: with a config function, revoke sessions in a request: "
                "request.auth.revoke_sessions(...)"
            )
        return await self.runtimes.fixed.revoke_sessions(user_id=user_id, sid=sid)


def protect_prefix(prefix: str, redirect_to: str | None = None) -> Hook:
    """A handle (after the auth ``handle``) that redirects with 303 when a request whose
    path starts with ``prefix`` is not signed in: pages, form posts and API routes alike.
    It goes to the sign-in page with ``callbackUrl`` (see :func:`sign_in_response`), or to
    ``redirect_to`` exactly when given. The test is a plain prefix: ``"/account/"`` spares
    ``/accounts``."""

    def flow(request: HttpRequest) -> HookFlow:
        if request.path.startswith(prefix):
            session = yield from request_auth(request)._session()
            if not signed_in(session) and (answer := sign_in_response(request, redirect_to)):
                return answer
        return (yield NEXT)  # type: ignore[no-any-return]

    return Hook(flow)


def sign_in_response(
    request: HttpRequest, redirect_to: str | None = None
) -> HttpResponseBase | None:
    """The 303 for a signed-out ``request``: to ``redirect_to`` when given; else to the
    project's ``settings.LOGIN_URL`` when it sets one, else to the engine's sign-in page
    (``pages.sign_in``, else ``<base_path>/signin``), with ``callbackUrl`` = the request's
    path and query. ``None`` when the request is for that page already (no loop)."""
    if redirect_to is None:
        login_url = (
            django_settings.LOGIN_URL if django_settings.is_overridden("LOGIN_URL") else None
        )
        page = None if login_url is None else resolve_url(login_url)
        settings = request_auth(request).runtime.settings
        redirect_to = sign_in_redirect(settings, request.get_full_path(), page)
    return None if redirect_to is None else HttpResponseRedirect(redirect_to, status=303)


class Sequence(Hook):
    """Several middleware factories in series (the first sees the request first), made
    by :func:`sequence`; it runs in either mode, adapting members that cannot (as Django
    does: ``sync_to_async``/``async_to_sync`` around a member without the capability)."""

    def __init__(self, factories: tuple[Callable[[GetResponse], Any], ...]) -> None:
        self.factories = factories

    def __call__(self, get_response: GetResponse) -> Callable[[HttpRequest], Any]:
        for factory in reversed(self.factories):
            is_async = iscoroutinefunction(get_response)
            if getattr(factory, "async_capable" if is_async else "sync_capable", not is_async):
                get_response = factory(get_response)
            elif is_async:
                get_response = sync_to_async(factory(async_to_sync(get_response)))
            else:
                get_response = async_to_sync(factory(sync_to_async(get_response)))
        return get_response


def sequence(*middlewares: Callable[[GetResponse], Any]) -> Sequence:
    """Combine middleware factories (handles) in series, like SvelteKit's ``sequence``:
    ``hooks = sequence(handle, protect_prefix("/account/"))``, then ``MIDDLEWARE`` names
    ``"myproject.auth.hooks"``."""
    return Sequence(middlewares)


@overload
def auth_required(view: View, /) -> View: ...
@overload
def auth_required(*, redirect_to: str | None = None) -> Callable[[View], View]: ...
def auth_required(
    view: View | None = None, /, *, redirect_to: str | None = None
) -> View | Callable[[View], View]:
    """Decorate a sync or async view: when not signed in, redirect with 303 to the sign-in
    page with ``callbackUrl`` (``settings.LOGIN_URL`` when the project sets it; see
    :func:`sign_in_response`), or to ``redirect_to`` exactly when given. Use it bare
    (``@auth_required``) or called (``@auth_required(...)``)."""

    hook = protect_prefix("", redirect_to)

    def decorate(view: View) -> View:
        run = run_async if iscoroutinefunction(view) else run_sync

        @wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            return run(hook.flow(request), request, lambda r: view(r, *args, **kwargs))

        return markcoroutinefunction(checked) if run is run_async else checked  # type: ignore[return-value]

    return decorate(view) if view is not None else decorate
