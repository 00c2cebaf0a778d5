"""The runtime for a request: the config (given, or a function of the request), checked at
start-up, and one :class:`io_bindings.anyio.Auth` per config object."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeAlias

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest

from sansio_auth import AuthConfig, AuthError
from sansio_auth.settings import MIN_SECRET_LENGTH

from .. import anyio as _anyio
from ..runtimes import ConfigSource
from ._signals import with_signals

LazyConfig: TypeAlias = Callable[[HttpRequest], AuthConfig | Awaitable[AuthConfig]]
"""A function of the request that returns its configuration (or an awaitable of it)."""


def platform_env() -> dict[str, str]:
    """``os.environ`` overlaid with the ``AUTH_*`` names set in Django's settings
    (``AUTH_SECRET``, ``AUTH_URL``, ``AUTH_TRUST_HOST``, ``AUTH_<PROVIDER>_ID``, ...)."""
    env = dict(os.environ)
    for name in dir(settings):
        if name.startswith("AUTH_"):
            value = getattr(settings, name)
            if isinstance(value, bool):
                env[name] = "true" if value else "false"
            elif isinstance(value, str):
                env[name] = value
    return env


def make_runtime(config: AuthConfig, env: Mapping[str, str] | None = None) -> _anyio.Auth:
    """The runtime for ``config`` (asyncio network backend; Django's signals sent for its
    sign-ins and sign-outs when it stores in the Django ORM), or ``ImproperlyConfigured``
    when the engine refuses the config or a secret is shorter than 32 characters."""
    try:
        config = with_signals(config)
        auth = _anyio.Auth(config, env=platform_env() if env is None else env, backend="asyncio")
    except AuthError as err:
        raise ImproperlyConfigured(f"sansio-auth: {err}") from err
    if any(len(secret) < MIN_SECRET_LENGTH for secret in auth.settings.secrets):
        raise ImproperlyConfigured(
            f"sansio-auth: AUTH_SECRET (or the configured `secret`) must be at least "
            f"{MIN_SECRET_LENGTH} characters long; generate one with `openssl rand -base64 33`"
        )
    return auth


def runtimes(config: AuthConfig | LazyConfig) -> ConfigSource:
    """The runtime of each request: one for a fixed config (made, and checked, at once),
    or one per config object a lazy config function returns (the most recent kept)."""
    return ConfigSource(config, make_runtime, _refuse, eager=True)


def _refuse(message: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"sansio-auth: {message}")
