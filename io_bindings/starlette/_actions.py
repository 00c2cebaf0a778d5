"""``sign_in``, ``sign_out`` and ``unstable_update``: the engine's own routes, run inside the
current request as its browser (see :mod:`sansio_auth.actions`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias
from urllib.parse import urlencode, urlsplit, urlunsplit

import msgspec
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse

from sansio_auth import AuthError, Response, actions

from ._state import RequestState, StateVar

Options: TypeAlias = Mapping[str, Any] | FormData
"""``sign_in``/``sign_out`` options: a mapping or a submitted form (``await request.form()``)."""
AuthorizationParams: TypeAlias = str | Mapping[str, str] | Sequence[tuple[str, str]]
_FALSE = frozenset({"false", "0", "no", "off"})


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


class Actions:
    """The three helpers of one ``HostAuth``, working on its current request."""

    def __init__(self, current: StateVar) -> None:
        self.current = current

    async def sign_in(
        self,
        provider: str | None = None,
        options: Options | None = None,
        authorization_params: AuthorizationParams | None = None,
    ) -> str:
        """Sign in with ``provider`` (a provider id; ``None``: go to the sign-in page).

        ``options``: ``redirect`` (default ``True``), ``redirectTo``/``redirect_to`` (where
        to land; default the same-site ``Referer``, else ``/``) and, for a credentials
        provider, the fields ``authorize`` receives (for e-mail: ``email``). With
        ``redirect=False`` returns the URL to go to (the provider's authorization URL,
        the verify-request page, ``redirectTo``, or the sign-in page); otherwise raises
        :class:`Redirect` to it. A failed sign-in raises its :class:`~sansio_auth.AuthError`
        (e.g. :class:`~sansio_auth.CredentialsSignin` with its ``code``).
        """
        state = self.current.get()
        fields, redirect, callback_url = _split(state, options)
        settings = state.runtime.settings
        route = actions.sign_in_route(settings, provider)
        if route is None:
            origin = _origin(state)
            return _finish(actions.sign_in_page_url(origin, settings, callback_url), redirect)
        body = await _form(state, fields, callback_url)
        query = _query(authorization_params)
        answer = await _post(state, route, body, "application/x-www-form-urlencoded", query)
        url = actions.answer_url(answer, settings)
        state.forget_session()
        return _finish(url, redirect)

    async def sign_out(self, options: Options | None = None) -> str:
        """Sign out: the session cookie is cleared (the database session deleted).

        ``options``: ``redirect`` (default ``True``) and ``redirectTo``/``redirect_to``
        (default the same-site ``Referer``, else ``/``). Returns the URL to go to with
        ``redirect=False``; otherwise raises :class:`Redirect` to it.
        """
        state = self.current.get()
        _, redirect, callback_url = _split(state, options)
        body = await _form(state, {}, callback_url)
        answer = await _post(state, "/signout", body, "application/x-www-form-urlencoded")
        url = actions.answer_url(answer, state.runtime.settings)
        state.forget_session(None)
        return _finish(url, redirect)

    async def unstable_update(self, data: Mapping[str, Any]) -> Any:
        """Update the session with ``data``: the ``jwt`` callback runs with
        ``trigger="update"`` and ``session=data`` (database strategy: the ``session``
        callback). The refreshed cookie goes on the response; returns the new session
        (``None`` when signed out)."""
        state = self.current.get()
        _same_site(state)
        token = await _csrf_token(state)
        body = msgspec.json.encode({"data": data, "csrfToken": token})
        answer = await _post(state, "/session", body, "application/json")
        if answer.status != 200:
            raise AuthError(f"the session update failed (status {answer.status})")
        session = answer.json()
        state.forget_session(session)
        return session


def _same_site(state: RequestState) -> None:
    """Refuse (403) a form post from another site (login CSRF): a request with an unsafe
    method must come from this origin when the browser names its ``Origin``."""
    if state.scope.get("method") in ("GET", "HEAD", "OPTIONS"):
        return
    origin = state.connection.headers.get("origin")
    if origin is not None and origin != _origin(state):
        raise HTTPException(403, detail="Cross-site request refused")


def _split(state: RequestState, options: Options | None) -> tuple[dict[str, Any], bool, str]:
    """The user's fields, whether to redirect, and the callback URL, from ``options``
    (after checking that the request is not a cross-site post)."""
    _same_site(state)
    fields = {k: v for k, v in (options or {}).items() if isinstance(v, str | int | float | bool)}
    redirect = fields.pop("redirect", True)
    if isinstance(redirect, str):
        redirect = redirect.strip().lower() not in _FALSE
    redirect_to = fields.pop("redirectTo", None)
    redirect_to = fields.pop("redirect_to", None) or redirect_to
    return fields, bool(redirect), str(redirect_to or _referer(state) or "/")


def _origin(state: RequestState) -> str:
    parts = urlsplit(state.engine_request("GET", "").url)
    return f"{parts.scheme}://{parts.netloc}"


def _referer(state: RequestState) -> str | None:
    """The ``Referer`` when it is a page of this site (its path and query)."""
    referer = state.connection.headers.get("referer")
    if not referer:
        return None
    parts = urlsplit(referer)
    if f"{parts.scheme}://{parts.netloc}" != _origin(state):
        return None
    return urlunsplit(("", "", parts.path or "/", parts.query, ""))


def _query(params: AuthorizationParams | None) -> str:
    if params is None:
        return ""
    if isinstance(params, str):
        return params.lstrip("?")
    return urlencode(list(params.items()) if isinstance(params, Mapping) else list(params))


async def _csrf_token(state: RequestState) -> str:
    """The library's CSRF token for this browser (its cookie kept for the response)."""
    answer = await state.runtime.respond(state.engine_request("GET", "/csrf"))
    assert answer is not None  # routes under base_path are always served
    state.add_cookies(answer.cookies)
    return str(answer.json()["csrfToken"])


async def _form(state: RequestState, fields: Mapping[str, Any], callback_url: str) -> bytes:
    token = await _csrf_token(state)
    return actions.action_form(fields, csrf_token=token, callback_url=callback_url)


async def _post(
    state: RequestState, route: str, body: bytes, content_type: str, query: str = ""
) -> Response:
    """POST ``body`` to ``<base_path><route>`` as the browser; keep the cookies it sets."""
    headers = {"content-type": content_type, **actions.RETURN_REDIRECT}
    request = state.engine_request("POST", route, query=query, headers=headers, body=body)
    answer = await state.runtime.respond(request)
    assert answer is not None
    state.add_cookies(answer.cookies)
    return answer


def _finish(url: str, redirect: bool) -> str:
    if redirect:
        raise Redirect(url)
    return url
