"""sansio-auth for Django (ASGI and WSGI): ``handle``, ``sign_in``, ``sign_out``.

>>> # myproject/auth.py
>>> from io_bindings.django import DjangoAuth, protect_prefix, sequence
>>> handle, sign_in, sign_out = DjangoAuth(config)   # or DjangoAuth(lambda request: config)
>>> hooks = sequence(handle, protect_prefix("/account/"))
>>> # settings.py: MIDDLEWARE = [..., "myproject.auth.hooks"];
>>> #              INSTALLED_APPS = [..., "io_bindings.django"]  (the template tags)
>>> # urls.py:     path("signin", sign_in), path("signout", sign_out)

Views read the session with ``await request.auth()`` (async) or ``request.auth()`` (sync).
See ``docs/adapters/django.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, NamedTuple

from django.http import HttpRequest, HttpResponseBase

from sansio_auth import AuthConfig
from sansio_auth.settings import MIN_SECRET_LENGTH

from ..translate import DEFAULT_HEADER_LIMITS, DEFAULT_MAX_BODY_SIZE, HeaderLimits
from ._handle import (
    AuthHttpRequest,
    Handle,
    Hook,
    RequestAuth,
    auth_required,
    protect_prefix,
    sequence,
)
from ._runtime import LazyConfig, runtimes
from ._views import sign_in, sign_out

DjangoAuthConfig = AuthConfig
"""The config record (the same :class:`~sansio_auth.AuthConfig`)."""
FormAction = Callable[[HttpRequest], Coroutine[Any, Any, HttpResponseBase]]


class DjangoAuthResult(NamedTuple):
    """What :func:`DjangoAuth` returns; unpacks to ``handle, sign_in, sign_out``."""

    handle: Handle
    """The middleware factory: serves ``base_path`` (``/auth``), sets ``request.auth``."""
    sign_in: FormAction
    """The sign-in form-action view (route it at ``signin``)."""
    sign_out: FormAction
    """The sign-out form-action view (route it at ``signout``)."""


def DjangoAuth(  # noqa: N802 - a constructor-like entry point, as HostAuth
    config: AuthConfig | LazyConfig,
    *,
    max_body_size: int = DEFAULT_MAX_BODY_SIZE,
    header_limits: HeaderLimits = DEFAULT_HEADER_LIMITS,
) -> DjangoAuthResult:
    """``handle, sign_in, sign_out = DjangoAuth(config)`` (former name: ``AdapterCAuth``).

    ``config`` is an :class:`~sansio_auth.AuthConfig`, or a function of the Django request
    returning one (sync or ``async``; lazy initialization: e.g. read ``request.META`` or
    settings). Options not in the config come from the environment overlaid with the
    ``AUTH_*`` names of Django's settings (``AUTH_SECRET``, ``AUTH_TRUST_HOST``, ...).
    A fixed config is checked now: an engine refusal or a secret shorter than 32
    characters raises ``django.core.exceptions.ImproperlyConfigured`` (a lazy config is
    checked the first time the function returns it). On auth routes, bodies over
    ``max_body_size`` bytes get 413 and headers over ``header_limits`` (64 KiB, 100 lines by
    default) 431.
    """
    handle = Handle(runtimes(config), max_body_size, header_limits)
    return DjangoAuthResult(handle, sign_in, sign_out)


AdapterCAuth = DjangoAuth
"""The former name of :func:`DjangoAuth`."""
AdapterCAuthConfig = DjangoAuthConfig
"""The former name of :data:`DjangoAuthConfig`."""
AdapterCAuthResult = DjangoAuthResult
"""The former name of :class:`DjangoAuthResult`."""


__all__ = [
    "MIN_SECRET_LENGTH",
    "AdapterCAuth",
    "AdapterCAuthConfig",
    "AdapterCAuthResult",
    "AuthHttpRequest",
    "DjangoAuth",
    "DjangoAuthConfig",
    "DjangoAuthResult",
    "Hook",
    "LazyConfig",
    "RequestAuth",
    "auth_required",
    "protect_prefix",
    "sequence",
    "sign_in",
    "sign_out",
]
