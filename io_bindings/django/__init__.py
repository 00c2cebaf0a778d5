"""sansio-auth for Django (ASGI and WSGI): ``handle, sign_in, sign_out = DjangoAuth(config)``;
``handle`` in ``MIDDLEWARE`` (alone or in a :func:`sequence` with :func:`protect_prefix`), the
views routed at ``signin`` and ``signout``, ``"io_bindings.django"`` in ``INSTALLED_APPS`` for
the template tags; views read ``await request.auth()`` or ``request.auth()``. See
``docs/adapters/django.md``."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, NamedTuple, TypeAlias

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponseBase, HttpResponseNotAllowed
from msgspec.structs import replace

from sansio_auth import AuthConfig, AuthError
from sansio_auth.settings import MIN_SECRET_LENGTH

from .. import anyio as _anyio
from ..runtimes import ConfigSource
from ..translate import DEFAULT_HEADER_LIMITS, DEFAULT_MAX_BODY_SIZE, HeaderLimits
from . import _bridge, _logout  # noqa: F401 - _logout: Django's logout() ends the session
from ._handle import (
    AuthHttpRequest,
    Handle,
    Hook,
    RequestAuth,
    auth_required,
    protect_prefix,
    request_auth,
    sequence,
)
from ._translate import django_response
from .orm.signals import with_signals

DjangoAuthConfig = AuthConfig
"""The config record (the same :class:`~sansio_auth.AuthConfig`)."""
LazyConfig: TypeAlias = Callable[[HttpRequest], AuthConfig | Awaitable[AuthConfig]]
"""A function of the request that returns its configuration (or an awaitable of it)."""
FormAction = Callable[[HttpRequest], Coroutine[Any, Any, HttpResponseBase]]


async def sign_in(request: HttpRequest) -> HttpResponseBase:
    """The sign-in form-action view: POST ``provider``, ``redirectTo``, the library's
    ``csrfToken`` and any credential fields (the ``signin_button``/``signin_form`` tags);
    the engine's answer (:meth:`io_bindings._state.AuthState.form_post`)."""
    return await _form_post(request, sign_in=True)


async def sign_out(request: HttpRequest) -> HttpResponseBase:
    """The sign-out form-action view: POST ``csrfToken`` and ``redirectTo`` (optional)."""
    return await _form_post(request, sign_in=False)


async def _form_post(request: HttpRequest, *, sign_in: bool) -> HttpResponseBase:
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    state = request_auth(request).state
    form = {k: v for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}  # Django's
    result = await _bridge.arun(request, lambda: state.form_post(form, sign_in=sign_in))
    return django_response(replace(result, cookies=()))  # the request's: `handle` sets them


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
    """``handle, sign_in, sign_out = DjangoAuth(config)``: ``config`` or a function of the
    request returning one (sync or ``async``). Options not in the config come from the
    environment overlaid with the ``AUTH_*`` names of Django's settings. A fixed config is
    checked now: an engine refusal or a secret shorter than 32 characters raises
    ``ImproperlyConfigured`` (a lazy one when first returned). On auth routes, bodies over
    ``max_body_size`` bytes get 413, headers over ``header_limits`` 431."""
    source = ConfigSource(config, make_runtime, _improper, eager=True)
    return DjangoAuthResult(Handle(source, max_body_size, header_limits), sign_in, sign_out)


def make_runtime(config: AuthConfig) -> _anyio.Auth:
    """The runtime for ``config`` (asyncio network backend; Django's signals sent when it
    stores in the Django ORM), or ``ImproperlyConfigured``."""
    env = dict(os.environ)  # overlaid with the AUTH_* names set in Django's settings
    for name in (name for name in dir(settings) if name.startswith("AUTH_")):
        if isinstance(value := getattr(settings, name), bool | str):
            env[name] = value if isinstance(value, str) else str(value).lower()
    try:
        auth = _anyio.Auth(with_signals(config), env=env, backend="asyncio")
    except AuthError as err:
        raise _improper(str(err)) from err
    if "short-secret" in auth.settings.warnings:  # the engine's rule; Django refuses it
        raise _improper(
            f"AUTH_SECRET (or the configured `secret`) must be at least {MIN_SECRET_LENGTH} "
            "characters long; generate one with `openssl rand -base64 33`"
        )
    return auth


def _improper(message: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"sansio-auth: {message}")


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
