"""The trio binding: :mod:`io_bindings.anyio`'s :class:`Auth` and :class:`AuthApp` with the
HTTP client on trio's own streams and timeouts (``backend="trio"``).

>>> from io_bindings.trio import AuthApp
>>> app = AuthApp(AuthConfig(providers=[...]))   # hypercorn -k trio module:app
"""

from __future__ import annotations

from typing import Any

from sansio_auth import AuthConfig

from . import anyio as _anyio


class Auth(_anyio.Auth):
    """:class:`io_bindings.anyio.Auth` with ``backend="trio"`` by default."""

    def __init__(self, config: AuthConfig, **runtime: Any) -> None:
        runtime.setdefault("backend", "trio")
        super().__init__(config, **runtime)


class AuthApp(_anyio.AuthApp):
    """:class:`io_bindings.anyio.AuthApp` with ``backend="trio"`` by default."""

    def __init__(self, config: AuthConfig | None = None, **options: Any) -> None:
        if "auth" not in options:
            options.setdefault("backend", "trio")
        super().__init__(config, **options)


__all__ = ["Auth", "AuthApp"]
