"""The runtime serving a request: the config (given, or a function of the request) with
the Starlette defaults for what it and the environment leave out, and one
:class:`io_bindings.anyio.Auth` per config object."""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from starlette.requests import HTTPConnection

from sansio_auth import AuthConfig
from sansio_auth.settings import framework_defaults

from .. import anyio as _anyio
from ..runtimes import ConfigSource

DEFAULT_BASE_PATH = "/api/auth"
"""The Starlette base path when neither the config nor ``AUTH_URL`` gives one."""
LazyConfig: TypeAlias = Callable[[HTTPConnection], AuthConfig | Awaitable[AuthConfig]]
"""A function of the request that returns its configuration (or an awaitable of it)."""
logger = logging.getLogger("sansio_auth")


class Runtimes(ConfigSource):
    """The runtime of each request: one per config object (the most recent ones kept),
    made on first use so that a missing secret or a bad config fails the first request.

    The Starlette defaults fill what the config and the environment leave out:
    ``base_path`` ``/api/auth``; outside production, a trusted ``Host`` and (with a warning)
    a random secret for this process. In production a missing secret is the engine's
    :class:`~sansio_auth.MissingSecretError`, naming ``AUTH_SECRET``.
    """

    def __init__(
        self,
        config: AuthConfig | LazyConfig,
        env: Mapping[str, str] | None,
        runtime: Mapping[str, Any],
    ) -> None:
        if not isinstance(config, AuthConfig) and not callable(config):
            raise TypeError("HostAuth takes an AuthConfig or a function of the request")
        super().__init__(config, self._make)
        self.env = os.environ if env is None else env
        self.runtime_options = dict(runtime)
        self._dev_secret: str | None = None

    def _make(self, config: AuthConfig) -> _anyio.Auth:
        config = framework_defaults(
            config, self.env, base_path=DEFAULT_BASE_PATH, development_secret=self.dev_secret
        )
        return _anyio.Auth(config, env=self.env, **self.runtime_options)

    def dev_secret(self) -> str:
        """A random secret for this process (development only), with a warning."""
        if self._dev_secret is None:
            logger.warning(
                "[auth][warn] AUTH_SECRET is not set: using a random secret for this process "
                "(development only; sessions end when it restarts and are not shared between "
                "workers). Set AUTH_SECRET, e.g. from `openssl rand -base64 33`."
            )
            self._dev_secret = secrets.token_urlsafe(32)
        return self._dev_secret

    async def aclose(self) -> None:
        """Close every runtime's HTTP connections."""
        for auth in self._by_config.drain():
            await auth.aclose()
