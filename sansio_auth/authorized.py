"""Route protection for adapter A: what the ``authorized`` callback's answer means.

The callback (``callbacks={"authorized": fn}``, ``fn(auth=session_or_None, request=...)``)
runs in the adapter's middleware for every request outside ``base_path``; the adapter
hands its answer to :func:`decide`:

* ``True`` (or no callback at all) → :class:`Allow`;
* a string → :class:`RedirectTo` that URL (relative to the request's URL);
* ``False`` or ``None`` → :class:`RedirectTo` the sign-in page (``pages.sign_in``, else
  ``<base_path>/signin``) with ``callbackUrl`` = the requested URL, unless the request
  is for that page already (then :class:`Allow`: no redirect loop);
* anything else → :class:`Custom` (the framework response to send as it is).
"""

from __future__ import annotations

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


def sign_in_page(settings: Settings, request_url: str) -> str:
    """The absolute URL of the sign-in page (``pages.sign_in`` or the built-in one)."""
    return urljoin(request_url, settings.pages.sign_in or f"{settings.base_path}/signin")


def decide(result: Any, *, request_url: str, settings: Settings) -> Decision:
    """What the ``authorized`` callback's ``result`` means for the request to ``request_url``."""
    if result is True:
        return Allow()
    if isinstance(result, str):
        return RedirectTo(urljoin(request_url, result))
    if result is False or result is None:
        page = sign_in_page(settings, request_url)
        if urlsplit(page).path == urlsplit(request_url).path:
            return Allow()
        separator = "&" if "?" in page else "?"
        return RedirectTo(f"{page}{separator}{urlencode({'callbackUrl': request_url})}")
    return Custom(result)
