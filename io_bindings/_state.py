"""One application request's auth state, the same in every framework adapter: the runtime
serving it, its session (read once, when first asked for), and the cookies the engine set
during the request, which the response must carry (a re-issued session, a sign-in's).

An adapter makes one per request with a function building the engine's
:class:`~sansio_auth.Request` for it, and keeps it in its framework's slot
(``request.auth``, the ASGI scope, ``request[...]``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec

from sansio_auth import Cookie, Request
from sansio_auth.actions import ActionResult, AuthorizationParams, AuthorizedResult
from sansio_auth.http import encode_uri_component, parse_cookie_header

from ._runtime import SessionRead
from .anyio import Auth
from .translate import BAD_HOST, BadHost

_UNREAD: Any = object()
_BAD_HOST = ActionResult(status=400, headers=BAD_HOST.headers, body=BAD_HOST.body)


class AuthState:
    """The auth state of one request; ``make_request`` builds its engine request (raising
    :class:`~io_bindings.translate.BadHost`)."""

    # One per request, made by every request that checks its session: its fields start as
    # the class's (immutable) defaults, so making one sets two.
    cookies: Sequence[Cookie] = ()
    """Cookies to add to this request's response, in order, one per name."""
    failure: ActionResult | None = None
    """The last failed action: a handler that lets its error through gets its answer."""
    user_id: str | None = None
    """The id of the stored user the session belongs to, once it is read."""
    _request: Request | None = None
    _session: Any = _UNREAD
    _user: Any = _UNREAD
    _csrf_token: str | None = None

    def __init__(self, runtime: Auth, make_request: Callable[[], Request]) -> None:
        self.runtime = runtime
        self._make_request = make_request

    def request(self) -> Request:
        """The engine's request for this request, its ``Cookie`` header with the cookies set
        during the request applied (raises ``BadHost``)."""
        request = self._request
        if request is None:  # made once: every helper of the request reads it
            request = self._request = self._make_request()
        if not self.cookies:
            return request
        jar = parse_cookie_header(request.header("cookie"))
        for cookie in self.cookies:
            if cookie.value and cookie.options.max_age != 0:
                jar[cookie.name] = cookie.value
            else:
                jar.pop(cookie.name, None)
        header = "; ".join(f"{k}={encode_uri_component(v)}" for k, v in jar.items())
        headers = {**request.headers, "cookie": header}
        return msgspec.structs.replace(request, headers=headers)  # its client address kept

    @property
    def data(self) -> Any:
        """The session read (``None`` before it is)."""
        return None if self._session is _UNREAD else self._session

    def read_now(self) -> bool:
        """Read the session now if that takes no IO (:meth:`~sansio_auth.Engine.session_now`:
        signed out, a plain JWT session), in any thread; whether the session is read."""
        if self._session is _UNREAD:
            try:
                read = self.runtime.engine.session_now(self.request())
            except BadHost:
                read = SessionRead()
            if read is not None:
                self.remember(read)
        return self._session is not _UNREAD

    async def session(self) -> Any:
        """The session (a mapping, or ``None``), read once; a bad ``Host`` reads as signed out."""
        if not self.read_now():
            self.remember(await self.runtime.run(self.runtime.session_call(self.request())))
        return self._session

    def remember(self, read: SessionRead) -> Any:
        """Keep a session read (or update): its session, and its cookies for the response."""
        self._session, self.user_id = read.data, read.user_id
        self._user = _UNREAD
        if read.cookies:
            self.add_cookies(read.cookies)
        return read.data

    async def stored_user(self) -> Any:
        """The stored user the session belongs to, read once: the store's own object when it
        has one (:meth:`~io_bindings.db.sqlalchemy.SQLAlchemyAdapter.get_user_object`: your
        ORM model), else its record; ``None`` signed out or when the store no longer has the
        user. :class:`RuntimeError` without a store."""
        if self._user is _UNREAD:
            adapter = self.runtime.settings.adapter
            if adapter is None:
                raise RuntimeError(
                    "sansio-auth: the signed-in user is read from the store, and this config "
                    "has none: AuthConfig(adapter=...) (or read the session instead)"
                )
            await self.session()
            user_id = self.user_id
            if user_id is None:
                self._user = None
            else:
                load = getattr(adapter, "get_user_object", None) or adapter.get_user
                self._user = await load(user_id)
        return self._user

    async def access_token(self, provider: str) -> str | None:
        """The access token of ``provider`` for this session (refreshed if due), or ``None``."""
        try:
            read = await self.runtime.access_token(self.request(), provider=provider)
        except BadHost:
            return None
        self.add_cookies(read.cookies)
        return read.token

    async def sign_in(
        self,
        provider: str | None,
        options: Mapping[str, Any] | None,
        authorization_params: AuthorizationParams | None = None,
        *,
        form_post: bool = False,
    ) -> ActionResult:
        """The runtime's sign-in for this request; its cookies are kept for the response (a
        bad ``Host`` is refused with 400)."""
        try:
            request = self.request()
        except BadHost:
            return _BAD_HOST
        result = await self.runtime.sign_in(
            request, provider, options, authorization_params, form_post=form_post
        )
        return self._acted(result)

    async def sign_out(
        self, options: Mapping[str, Any] | None, *, form_post: bool = False
    ) -> ActionResult:
        """The runtime's sign-out for this request; its cookies are kept for the response."""
        return self._acted(
            await self.runtime.sign_out(self.request(), options, form_post=form_post)
        )

    async def update(self, data: Any) -> SessionRead:
        """The runtime's session update for this request (kept as the session unless refused:
        403 for a cross-site request, 400 for a bad ``Host``)."""
        try:
            request = self.request()
        except BadHost:
            return SessionRead(status=400, headers=BAD_HOST.headers, body=BAD_HOST.body)
        read = await self.runtime.update_session(request, data)
        if read.status == 200:
            self.remember(read)
        return read

    async def authorized(self, framework_request: Any) -> AuthorizedResult:
        """The ``authorized`` callback's decision for this request (its session kept when
        read; a bad ``Host`` is a 400)."""
        try:
            request = self.request()
        except BadHost:
            return AuthorizedResult(status=400, headers=BAD_HOST.headers, body=BAD_HOST.body)
        result = await self.runtime.authorized(request, framework_request)
        if result.read:
            self.remember(result)
        return result

    async def form_post(self, form: Mapping[str, Any], *, sign_in: bool) -> ActionResult:
        """A form the browser posted straight to a sign-in or sign-out action: ``provider``
        names the provider, the other fields are the options (``redirectTo``, ``csrfToken``,
        credentials); the engine checks the token (``form_post``)."""
        options = {name: value for name, value in form.items() if name != "provider"}
        if sign_in:
            return await self.sign_in(form.get("provider") or None, options, form_post=True)
        return await self.sign_out(options, form_post=True)

    def csrf_token(self) -> str:
        """The library's CSRF token for forms on this page, made once (its cookie goes on
        the response); no IO, so safe in any thread, event loop or not."""
        if self._csrf_token is None:
            found = self.runtime.csrf_token(self.request())
            self.add_cookies(found.cookies)
            self._csrf_token = found.token or ""
        return self._csrf_token

    def _acted(self, result: ActionResult) -> ActionResult:
        if result.error is not None:
            self.failure = result
        self.add_cookies(result.cookies)
        self._session = _UNREAD  # changed: read again (with the new cookies) when asked
        return result

    def failed_url(self, error: BaseException) -> str | None:
        """Where the browser goes when a handler lets ``error`` through: the page of the
        failed action that raised it; ``None`` for any other error."""
        failure = self.failure
        return failure.url if failure is not None and error is failure.error else None

    def add_cookies(self, cookies: Iterable[Cookie]) -> None:
        """Cookies for the response (a later cookie of the same name replaces an earlier one)."""
        for cookie in cookies:
            self.cookies = [*(c for c in self.cookies if c.name != cookie.name), cookie]

    def take_cookies(self) -> list[Cookie]:
        """The cookies to set, once: whoever sends the response takes them."""
        cookies, self.cookies = list(self.cookies), ()
        return cookies
