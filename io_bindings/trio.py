"""The trio binding: the anyio binding's :class:`Auth` and :class:`AuthApp` on trio's own
streams and cancel scopes (``trio.open_tcp_stream``, ``trio.SSLStream``, ``trio.fail_after``).

Same engine, same dispatcher; only the HTTP client's network backend differs.

>>> from io_bindings.trio import AuthApp
>>> app = AuthApp(AuthConfig(providers=[...]))   # hypercorn -k trio module:app
"""

from __future__ import annotations

from typing import ClassVar

from . import anyio as _anyio
from .http import NetworkBackend
from .http._trio import TrioBackend


class Auth(_anyio.Auth):
    """:class:`io_bindings.anyio.Auth` whose HTTP client runs on trio's streams."""

    network_backend: ClassVar[type[NetworkBackend]] = TrioBackend


class AuthApp(_anyio.AuthApp):
    """:class:`io_bindings.anyio.AuthApp` serving through the trio :class:`Auth`."""

    auth_class: ClassVar[type[_anyio.Auth]] = Auth


__all__ = ["Auth", "AuthApp"]
