"""Server-side actions: what the engine decides when the server signs a browser in or out,
updates its session or reads it (Auth.js's ``signIn``, ``signOut``, ``unstable_update``,
``auth``), for every framework at once. Pure: no IO.

The engine's entry points (:meth:`~sansio_auth.Engine.sign_in`,
:meth:`~sansio_auth.Engine.sign_out`, :meth:`~sansio_auth.Engine.update_session`,
:meth:`~sansio_auth.Engine.session`, :meth:`~sansio_auth.Engine.authorized`) take the
request the browser sent to the application and answer one of the results below: a
:class:`~sansio_auth.Response` (what to send the browser, with the cookies to set) that also
carries what the server code needs (the URL, the error, the session). The rules:

* **Cross-site refusal** (:func:`cross_site`): an action made for a request with an unsafe
  method whose ``Origin`` is another site is refused (403), before anything else: it is a
  form posted from elsewhere (login CSRF).
* **Where to go afterwards** (:func:`callback_url`): ``redirectTo``, else the page the request
  came from when it is on this site (the ``Referer``'s path and query), else ``/``; the
  ``redirect`` callback then decides, as for the engine's own routes.
* **CSRF token**: the server acting for itself posts no token (the cross-site refusal guards
  it, as Auth.js's server actions). A *form post* (the browser posted the form straight to
  an action view, e.g. Django's ``sign_in``) carries the library's ``csrfToken``, checked
  against its cookie, and must name a configured provider, as the engine's own routes
  require.
* **A failed sign-in** answers its :class:`~sansio_auth.AuthError` (server code raises it)
  and where the browser goes: the error or sign-in page with ``?error=``, or, for a
  refused credentials sign-in, back to the form's page (:func:`back_to_form`).
* **An attempt the route refuses itself** (over a rate limit) is answered as the route
  answers it: ``429`` with ``Retry-After`` and its page, or its JSON for a script.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeAlias
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

from .authorized import Allow, Decision
from .errors import AuthError, CredentialsSignin
from .http import Cookie, Request, Response, same_origin

AuthorizationParams: TypeAlias = str | Mapping[str, str] | Sequence[tuple[str, str]]
"""Extra authorization request parameters: a query string, a mapping or pairs."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_FALSE = frozenset({"false", "0", "no", "off"})


class ActionResult(Response, frozen=True, kw_only=True):
    """The answer to a sign-in or sign-out: a ``303`` to :attr:`url` (or, without
    ``redirect``, ``200 {"url": ...}``), or ``403`` when refused, with the cookies to set;
    or, when the route refuses the attempt itself, its own answer (``429`` with
    ``Retry-After`` over a rate limit: the page, or JSON for a script) and no :attr:`url`."""

    url: str | None = None
    """Where the browser goes next; ``None`` when the action was refused (then the status
    says how: ``403`` cross-site, ``429`` over a rate limit)."""
    error: AuthError | None = None
    """Why the action failed (``url`` then shows it), or ``None``."""

    @property
    def refused(self) -> bool:
        """Whether the action was refused as a cross-site request."""
        return self.status == 403


class SessionResult(Response, frozen=True, kw_only=True):
    """A session read or update: :attr:`session` and the cookies to set (a slid expiry,
    a refreshed token); ``403`` when an update is refused as cross-site."""

    data: Any = None
    """The session mapping, or ``None`` when signed out."""
    user_id: str | None = None
    """The id of the stored user the session belongs to (a JWT session's ``sub``), for the
    server to find that user (a framework's ``request.user``); ``None`` when signed out."""


class TokenResult(Response, frozen=True, kw_only=True):
    """A token for the server: a provider's access token (never for the browser), or the
    CSRF token for a page's forms; with the cookies to set (a refreshed session, the CSRF
    cookie)."""

    token: str | None = None
    """The token, or ``None`` (signed out, no such provider, CSRF checks off...)."""


class AuthorizedResult(SessionResult, frozen=True, kw_only=True):
    """What the ``authorized`` callback decided for a request outside ``base_path``, the
    session it was given, and the cookies to set; ``500`` when the callback raised."""

    decision: Decision = Allow()
    read: bool = False
    """Whether the session was read (there is a callback): :attr:`data` is the session."""


REFUSED = ActionResult(
    status=403,
    headers=(("content-type", "text/plain"),),
    body=b"Cross-site request refused",
)
"""The answer to an action refused by :func:`cross_site`."""


class Options(NamedTuple):
    """``sign_in``/``sign_out`` options, read by :func:`parse_options`."""

    fields: dict[str, str]
    """The fields the provider receives (credentials, ``email``...)."""
    redirect: bool
    redirect_to: str | None


def parse_options(options: Mapping[str, Any] | None) -> Options:
    """The options of an action (a mapping or a submitted form): ``redirect`` (default
    ``True``; ``"false"``, ``"0"``, ``"no"``, ``"off"`` are false), ``redirectTo`` or
    ``redirect_to``, and the other plain values (strings, numbers, booleans) as fields."""
    fields = {k: v for k, v in (options or {}).items() if isinstance(v, str | int | float | bool)}
    redirect = fields.pop("redirect", True)
    if isinstance(redirect, str):
        redirect = redirect.strip().lower() not in _FALSE
    redirect_to = fields.pop("redirectTo", None)
    redirect_to = fields.pop("redirect_to", None) or redirect_to
    return Options(
        fields={k: str(v) for k, v in fields.items()},
        redirect=bool(redirect),
        redirect_to=str(redirect_to) if redirect_to else None,
    )


def cross_site(request: Request, origin: str) -> bool:
    """Whether ``request`` is a cross-site request with an unsafe method: its ``Origin``
    (which browsers send with every such request) is not ``origin``."""
    if request.method.upper() in SAFE_METHODS:
        return False
    sent = request.header("origin")
    return sent is not None and not same_origin(sent, origin)


def same_site_page(request: Request, origin: str) -> str | None:
    """The page ``request`` came from (its ``Referer``'s path and query) when it is on
    ``origin``; ``None`` otherwise."""
    referer = request.header("referer")
    if not referer or not same_origin(referer, origin):
        return None
    parts = urlsplit(referer)
    return urlunsplit(("", "", parts.path or "/", parts.query, ""))


def callback_url(redirect_to: str | None, request: Request, origin: str) -> str:
    """Where to go after the action: ``redirect_to``, else the same-site page the request
    came from, else ``/``."""
    return redirect_to or same_site_page(request, origin) or "/"


def back_to_form(error_url: str, error: AuthError, request: Request, origin: str) -> str:
    """Where a failed sign-in sends the browser: for a refused credentials sign-in, the
    same-site page of the form with ``error`` and ``code`` in its query (its other
    parameters kept); otherwise ``error_url`` (the engine's error or sign-in page)."""
    if not isinstance(error, CredentialsSignin):
        return error_url
    page = same_site_page(request, origin)
    if page is None:
        return error_url
    parts = urlsplit(page)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ("error", "code")]
    query += [("error", error.type), ("code", error.code)]
    return urlunsplit(("", "", parts.path, urlencode(query), ""))


def authorization_query(params: AuthorizationParams | None) -> dict[str, str]:
    """``params`` as the query an authorization request is built from."""
    if params is None:
        return {}
    if isinstance(params, str):
        return dict(parse_qsl(params.lstrip("?"), keep_blank_values=True))
    return dict(params.items() if isinstance(params, Mapping) else params)


def answer(
    url: str, cookies: Iterable[Cookie], *, redirect: bool, error: AuthError | None = None
) -> ActionResult:
    """A ``303`` to ``url``, or (``redirect=False``) ``200 {"url": url}``, setting ``cookies``."""
    if redirect:
        return ActionResult(
            status=303, headers=(("location", url),), cookies=tuple(cookies), url=url, error=error
        )
    return ActionResult(
        headers=(("content-type", "application/json"),),
        body=msgspec.json.encode({"url": url}),
        cookies=tuple(cookies),
        url=url,
        error=error,
    )
