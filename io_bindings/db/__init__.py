"""Database adapters for :class:`~sansio_auth.config.AuthConfig`'s ``adapter``.

* :class:`io_bindings.db.memory.MemoryAdapter` — in process memory (tests, demos).
* :class:`io_bindings.db.sqlite.SQLiteAdapter` — one SQLite file (the embedded default).
* :class:`io_bindings.db.postgres.PostgresAdapter` — PostgreSQL, on Auth.js's tables
  (extra ``postgres``).
* :class:`io_bindings.db.redis.RedisAdapter` — Redis, with TTLs (extra ``redis``).

All implement :class:`sansio_auth.adapters.Adapter` (and its optional
:class:`~sansio_auth.adapters.AtomicSignUp`) and work on asyncio and trio.
Import the module you use: the others' drivers need not be installed.
"""
