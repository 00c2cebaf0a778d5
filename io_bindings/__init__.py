"""IO bindings for the sans-IO engine: they perform its actions and serve its responses.

* :mod:`io_bindings.anyio` — the anyio binding and ``AuthApp``, an ASGI app (asyncio or trio).
* :mod:`io_bindings.asyncio`, :mod:`io_bindings.trio` — the same ``Auth``/``AuthApp`` on the
  loop's own streams and timeouts.
* :mod:`io_bindings.http` — the HTTP client all three use (h11 over a network backend).
* :func:`get_token` — Auth.js's ``getToken``: the session token of any framework's request
  (its cookie, else ``Authorization: Bearer``).
"""

from .tokens import get_token

__all__ = ["get_token"]
