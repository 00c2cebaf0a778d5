"""The asyncio binding: :mod:`io_bindings.anyio`'s :class:`Auth` and :class:`AuthApp` with the
HTTP client on asyncio's own streams and timeouts (``backend="asyncio"``).

>>> from io_bindings.asyncio import AuthApp
>>> app = AuthApp(AuthConfig(providers=[...]))   # uvicorn module:app
"""

from __future__ import annotations

from typing import Any

from sansio_auth import AuthConfig

from . import anyio as _anyio


class Auth(_anyio.Auth):
    """:class:`io_bindings.anyio.Auth` with ``backend="asyncio"`` by default."""

    def __init__(self, config: AuthConfig, **runtime: Any) -> None:
        runtime.setdefault("backend", "asyncio")
        super().__init__(config, **runtime)


class AuthApp(_anyio.AuthApp):
    """:class:`io_bindings.anyio.AuthApp` with ``backend="asyncio"`` by default."""

    def __init__(self, config: AuthConfig | None = None, **options: Any) -> None:
        if "auth" not in options:
            options.setdefault("backend", "asyncio")
        super().__init__(config, **options)


__all__ = ["Auth", "AuthApp"]
