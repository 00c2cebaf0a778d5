"""The runtime for a request: the config (given, or a function of the request), checked at
start-up, and one :class:`io_bindings.anyio.Auth` per config object."""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest

from sansio_auth import AuthConfig, AuthError
from sansio_auth.settings import MIN_SECRET_LENGTH

from .. import anyio as _anyio
from ..runtimes import RuntimeCache

LazyConfig: TypeAlias = Callable[[HttpRequest], AuthConfig | Awaitable[AuthConfig]]
ConfigSource: TypeAlias = AuthConfig | LazyConfig


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
    """The runtime for ``config`` (asyncio network backend), or ``ImproperlyConfigured``
    when the engine refuses the config or a secret is shorter than 32 characters."""
    try:
        auth = _anyio.Auth(config, env=platform_env() if env is None else env, backend="asyncio")
    except AuthError as err:
        raise ImproperlyConfigured(f"sansio-auth: {err}") from err
    if any(len(secret) < MIN_SECRET_LENGTH for secret in auth.settings.secrets):
        raise ImproperlyConfigured(
            f"sansio-auth: AUTH_SECRET (or the configured `secret`) must be at least "
            f"{MIN_SECRET_LENGTH} characters long; generate one with `openssl rand -base64 33`"
        )
    return auth


class Runtimes:
    """The runtime of each request: one for a fixed config (made, and checked, at once),
    or one per config object a lazy config function returns (the most recent
    ones kept: return the same objects, e.g. one per environment)."""

    def __init__(self, config: ConfigSource) -> None:
        self._by_config = RuntimeCache(make_runtime)
        if isinstance(config, AuthConfig):
            self.fixed: _anyio.Auth | None = make_runtime(config)
            self.lazy: LazyConfig | None = None
        elif callable(config):
            self.fixed, self.lazy = None, config
        else:
            raise TypeError("DjangoAuth takes an AuthConfig or a function of the request")

    def for_config(self, config: Any) -> _anyio.Auth:
        """The (cached) runtime of a config the lazy function returned."""
        if not isinstance(config, AuthConfig):
            raise ImproperlyConfigured(
                f"sansio-auth: the config function returned {type(config).__name__}, "
                "not an AuthConfig"
            )
        return self._by_config.get(config)

    def resolve(self, request: HttpRequest) -> _anyio.Auth | Awaitable[_anyio.Auth]:
        """The runtime for ``request``; awaitable when the config function is ``async``."""
        if self.fixed is not None:
            return self.fixed
        assert self.lazy is not None
        config = self.lazy(request)
        if inspect.isawaitable(config):
            return self._after(config)
        return self.for_config(config)

    async def _after(self, config: Awaitable[AuthConfig]) -> _anyio.Auth:
        return self.for_config(await config)
