"""The asyncio binding: the anyio binding's :class:`Auth` and :class:`AuthApp` on asyncio's
own streams and timeouts (``asyncio.open_connection``, ``asyncio.timeout``).

Same engine, same dispatcher; only the HTTP client's network backend differs.

>>> from io_bindings.asyncio import AuthApp
>>> app = AuthApp(AuthConfig(providers=[...]))   # uvicorn module:app
"""

from __future__ import annotations

from typing import ClassVar

from . import anyio as _anyio
from .http import AsyncioBackend, NetworkBackend


class Auth(_anyio.Auth):
    """:class:`io_bindings.anyio.Auth` whose HTTP client runs on asyncio's streams."""

    network_backend: ClassVar[type[NetworkBackend]] = AsyncioBackend


class AuthApp(_anyio.AuthApp):
    """:class:`io_bindings.anyio.AuthApp` serving through the asyncio :class:`Auth`."""

    auth_class: ClassVar[type[_anyio.Auth]] = Auth


__all__ = ["Auth", "AuthApp"]
