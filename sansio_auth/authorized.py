"""Route protection: who is signed in, where a signed-out request goes, and what the
``authorized`` callback's answer means.

:func:`signed_in` is what "signed in" means everywhere (every framework's protection helpers
and dependencies): a session with a ``user``.

:func:`sign_in_redirect` is the one rule every framework's protection helper follows
(Django's ``auth_required`` and ``protect_prefix``, aiohttp's ``protect`` and
``require_session``, the Starlette middleware): the sign-in page with ``callbackUrl`` = the
requested URL, so the user lands back where they were once signed in.

The ``authorized`` callback (``callbacks={"authorized": fn}``,
``fn(auth=session_or_None, request=...)``) runs through the engine
(:meth:`~sansio_auth.Engine.authorized`) for every request outside ``base_path`` that the
Starlette/FastAPI middleware sees; :func:`decide` reads its answer:

* ``True`` (or no callback at all) → :class:`Allow`;
* a string → :class:`RedirectTo` that URL (relative to the request's URL);
* ``False`` or ``None`` → :class:`RedirectTo` the sign-in page (``pages.sign_in``, else
  ``<base_path>/signin``) with ``callbackUrl`` = the requested URL, unless the request
  is for that page already (then :class:`Allow`: no redirect loop);
* anything else → :class:`Custom` (the framework response to send as it is).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

from .settings import Settings


@dataclass(frozen=True, slots=True)
class Allow:
    """The request goes on to the application."""


@dataclass(frozen=True, slots=True)
class RedirectTo:
    """Answer with a redirect to ``url`` (absolute)."""

    url: str


@dataclass(frozen=True, slots=True)
class Custom:
    """Send ``response`` (whatever the callback returned) as it is."""

    response: Any


Decision = Allow | RedirectTo | Custom


def signed_in(session: Any) -> bool:
    """Whether ``session`` (a session read's value) is signed in: a mapping with a ``user``."""
    if type(session) is dict:  # what a read gives: spared the slower ABC check, every request
        return bool(session.get("user"))
    return isinstance(session, Mapping) and bool(session.get("user"))


def sign_in_redirect(settings: Settings, request_url: str, page: str | None = None) -> str | None:
    """Where to send a signed-out request for ``request_url`` (absolute, or a path with its
    query): the sign-in page (``page`` when given, else ``pages.sign_in``, else the built-in
    ``<base_path>/signin``) resolved against ``request_url``, with ``callbackUrl`` =
    ``request_url``. ``None`` when the request is for that page already (no redirect loop)."""
    target = urljoin(request_url, page or settings.pages.sign_in or f"{settings.base_path}/signin")
    if urlsplit(target).path == urlsplit(request_url).path:
        return None
    separator = "&" if "?" in target else "?"
    return f"{target}{separator}{urlencode({'callbackUrl': request_url})}"


def decide(result: Any, *, request_url: str, settings: Settings) -> Decision:
    """What the ``authorized`` callback's ``result`` means for the request to ``request_url``."""
    if result is True:
        return Allow()
    if isinstance(result, str):
        return RedirectTo(urljoin(request_url, result))
    if result is False or result is None:
        url = sign_in_redirect(settings, request_url)
        return Allow() if url is None else RedirectTo(url)
    return Custom(result)
