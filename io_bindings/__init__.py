"""IO bindings for the sans-IO engine: they perform its actions and serve its responses.

* :mod:`io_bindings.anyio` — the anyio binding and ``AuthApp``, an ASGI app (asyncio or trio).
"""
