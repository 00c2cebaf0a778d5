"""Hooks (``handle``, ``protect_prefix``...): generators (:data:`HookFlow`) run sync or async."""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Generator
from typing import Any, TypeAlias, TypeVar, overload

from asgiref.sync import async_to_sync, iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured, PermissionDenied, RequestDataTooBig
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import resolve_url

from sansio_auth.authorized import sign_in_redirect, signed_in

from .. import anyio as _anyio
from .._loop import in_event_loop
from .._state import AuthState
from ..runtimes import ConfigSource
from ..translate import (
    BODY_TOO_LARGE,
    DEFAULT_HEADER_LIMITS,
    DEFAULT_MAX_BODY_SIZE,
    HEADERS_TOO_LARGE,
    HeaderLimits,
    too_large,
)
from . import _bridge
from ._translate import add_cookies, django_response, engine_request, raw_path, with_template

GetResponse: TypeAlias = Callable[[HttpRequest], Any]
"""Django's ``get_response``: sync (returns the response) or async (a coroutine of it)."""
View = TypeVar("View", bound=Callable[..., Any])
NEXT: Any = object()
"""What a hook flow yields to get the response of the rest of the chain."""
HookFlow: TypeAlias = Generator[Any, Any, Any]


def run_sync(flow: HookFlow, request: HttpRequest, next_: GetResponse | None = None) -> Any:
    """Drive ``flow`` in sync code (the runtime's work on its loop)."""
    value = None
    while True:
        try:
            step = flow.send(value)
        except StopIteration as done:
            return done.value
        value = next_(request) if step is NEXT else _bridge.run(request, step)  # type: ignore[misc]


async def run_async(flow: HookFlow, request: HttpRequest, next_: GetResponse | None = None) -> Any:
    """Drive ``flow`` in async code."""
    value = None
    while True:
        try:
            step = flow.send(value)
        except StopIteration as done:
            return done.value
        value = await next_(request) if step is NEXT else await _bridge.arun(request, step)  # type: ignore[misc]


class RequestAuth:
    """``request.auth``: call it for the session (a mapping, or ``None`` when signed out),
    ``await request.auth()`` in async code, ``request.auth()`` in sync code (whether the
    calling thread runs an event loop decides); so for the other methods. The session is
    read once per request; the cookies the engine sets go on the response."""

    def __init__(self, request: HttpRequest, runtime: _anyio.Auth) -> None:
        self.request = request
        self.runtime = runtime
        self.state = AuthState(runtime, lambda: engine_request(request))
        """The request's auth state (session, cookies for the response)."""

    def __call__(self) -> Any:
        if not in_event_loop() and self.state.read_now():  # no IO: no driver either
            return self.state.data
        return self._run(self._session())

    def session(self) -> Any:
        """The session, from sync code."""
        return run_sync(self._session(), self.request)

    async def asession(self) -> Any:
        """The session, from async code."""
        return await run_async(self._session(), self.request)

    def _session(self) -> HookFlow:
        if not self.state.read_now():  # no IO needed: no trip to the event loop
            yield self.state.session
        return self.state.data

    def _run(self, flow: HookFlow) -> Any:
        return (run_async if in_event_loop() else run_sync)(flow, self.request)

    def access_token(self, provider: str) -> Any:
        """A valid access token of ``provider`` for this request's session (refreshed if
        due), or ``None``: ``await request.auth.access_token("op")`` in async code."""
        return self._run(_calling(lambda: self.state.access_token(provider)))

    def update(self, data: Any) -> Any:
        """Update the session with ``data`` (:meth:`sansio_auth.Engine.update_session`): the
        new session (``None`` when signed out); ``PermissionDenied`` for a cross-site post."""
        return self._run(self._update(data))

    def _update(self, data: Any) -> HookFlow:
        read = yield lambda: self.state.update(data)
        if read.status != 200:
            raise PermissionDenied(read.body.decode())
        return read.data

    def sign_out(self) -> Any:
        """End this request's session, as the sign-out route does (a database session's row
        deleted, a JWT session's record), its cookie deleted on the response; what Django's
        ``logout()`` does for you. ``PermissionDenied`` for a cross-site post."""
        return self._run(self._sign_out())

    def _sign_out(self) -> HookFlow:
        session = yield from self._session()
        if signed_in(session):
            ended = yield lambda: self.state.sign_out({"redirect": False})
            if ended.status == 403:
                raise PermissionDenied(ended.body.decode())
        for cached in ("_cached_user", "_acached_user"):  # request.user, request.auser()
            self.request.__dict__.pop(cached, None)

    def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> Any:
        """End the sessions of ``user_id`` and/or ``sid`` ("sign out everywhere"): the
        number of database sessions deleted (:meth:`io_bindings.anyio.Auth.revoke_sessions`)."""
        return self._run(_calling(lambda: self.runtime.revoke_sessions(user_id=user_id, sid=sid)))

    def csrf_token(self) -> str:
        """The library's CSRF token for forms on this page (its cookie set on the response)."""
        return self.state.csrf_token()


def _calling(call: Callable[[], Any]) -> HookFlow:
    return (yield call)


class AuthHttpRequest(HttpRequest):
    """For annotations only: a request that passed the auth ``handle``."""

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
    """A Django middleware factory running ``flow`` in sync or async mode: put it in
    ``MIDDLEWARE`` by dotted path, or combine several with :func:`sequence`."""

    sync_capable = True
    async_capable = True

    def __init__(self, flow: Callable[[HttpRequest], HookFlow]) -> None:
        self.flow = flow

    def __call__(self, get_response: GetResponse) -> Callable[[HttpRequest], Any]:
        return _driving(get_response, lambda request: (self.flow(request), get_response))


def _driving(like: Callable[..., Any], start: Callable[..., Any]) -> Callable[..., Any]:
    """A function of the request (and a view's arguments) driving the flow ``start`` makes,
    with the next handler it gives: async when ``like`` is."""
    run = run_async if iscoroutinefunction(like) else run_sync

    def driven(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        flow, next_ = start(request, *args, **kwargs)
        return run(flow, request, next_)

    return markcoroutinefunction(driven) if run is run_async else driven


class Handle(Hook):
    """The auth ``handle``: serves every route under ``base_path`` (bodies over
    ``max_body_size`` bytes get 413, headers over ``header_limits`` 431) and sets
    ``request.auth`` for the rest, whose response gets the cookies set during the request."""

    def __init__(
        self,
        runtimes: ConfigSource,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
    ) -> None:
        super().__init__(self._handle)
        self.runtimes = runtimes
        self.max_body_size = max_body_size
        self.header_limits = header_limits

    def _handle(self, request: HttpRequest) -> HookFlow:
        found = self.runtimes.resolve(request)
        runtime = (yield lambda: found) if inspect.isawaitable(found) else found
        if runtime.serves(raw_path(request)):
            if not self.header_limits.allow(request.headers.items()):
                return django_response(HEADERS_TOO_LARGE)
            if (body := self._body(request)) is None:
                return django_response(BODY_TOO_LARGE)
            make = functools.partial(engine_request, request, body)
            served = yield lambda: runtime.serve(make, request.path)
            return django_response(with_template(request, served))
        request.auth = auth = RequestAuth(request, runtime)  # type: ignore[attr-defined]
        response = yield NEXT
        add_cookies(response, auth.state.take_cookies())
        return response

    def _body(self, request: HttpRequest) -> bytes | None:
        """The request body, or ``None`` when it is over ``max_body_size`` bytes."""
        if not too_large(request.META.get("CONTENT_LENGTH"), self.max_body_size):
            with contextlib.suppress(RequestDataTooBig):
                if len(body := request.body) <= self.max_body_size:
                    return body
        return None

    async def revoke_sessions(self, *, user_id: str | None = None, sid: str | None = None) -> int:
        """End the sessions of ``user_id`` and/or ``sid`` outside a request (a management
        command, a task): the fixed config's runtime, on the caller's event loop."""
        hint = "with a config function, revoke sessions in a request: request.auth.revoke_sessions"
        runtime = self.runtimes.fixed_runtime(ImproperlyConfigured(f"sansio-auth: {hint}(...)"))
        return await runtime.revoke_sessions(user_id=user_id, sid=sid)


def protect_prefix(prefix: str, redirect_to: str | None = None) -> Hook:
    """A handle (after the auth ``handle``) redirecting with 303 a request whose path starts
    with ``prefix`` (a plain prefix: ``"/account/"`` spares ``/accounts``) when it is not
    signed in: to ``redirect_to`` when given, else to ``settings.LOGIN_URL`` when the project
    sets one, else to the engine's sign-in page, with ``callbackUrl``
    (:func:`sansio_auth.authorized.sign_in_redirect`: not when on that page already)."""

    def flow(request: HttpRequest) -> HookFlow:
        if request.path.startswith(prefix):
            session = yield from (auth := request_auth(request))._session()
            if not signed_in(session):
                login = django_settings.is_overridden("LOGIN_URL")
                page = resolve_url(django_settings.LOGIN_URL) if login else None
                url = sign_in_redirect(auth.runtime.settings, request.get_full_path(), page)
                if (url := url if redirect_to is None else redirect_to) is not None:
                    return HttpResponseRedirect(url, status=303)
        return (yield NEXT)

    return Hook(flow)


class Sequence(Hook):
    """``sequence(handle, protect_prefix("/account/"))``: middleware factories in series (the
    first sees the request first; ``MIDDLEWARE`` names the result), in either mode: a member
    without the capability is adapted as Django does (``sync_to_async``/``async_to_sync``)."""

    def __init__(self, *factories: Callable[[GetResponse], Any]) -> None:
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


sequence = Sequence
"""``hooks = sequence(handle, protect_prefix("/account/"))``: middleware factories in series,
for ``MIDDLEWARE`` to name (:class:`Sequence`)."""


@overload
def auth_required(view: View, /) -> View: ...
@overload
def auth_required(*, redirect_to: str | None = None) -> Callable[[View], View]: ...
def auth_required(
    view: View | None = None, /, *, redirect_to: str | None = None
) -> View | Callable[[View], View]:
    """Decorate a sync or async view (bare or called): when not signed in, redirect with 303
    as :func:`protect_prefix` does (the same targets)."""
    hook = protect_prefix("", redirect_to)

    def decorate(view: View) -> View:
        def start(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            return hook.flow(request), lambda r: view(r, *args, **kwargs)

        return functools.wraps(view)(_driving(view, start))  # type: ignore[return-value]

    return decorate(view) if view is not None else decorate
