"""The SQLAlchemy adapter: SQLAlchemy 2 on SQLite, PostgreSQL, MySQL or MariaDB.

>>> from io_bindings.db.sqlalchemy import SQLAlchemyAdapter
>>> config = AuthConfig(adapter=SQLAlchemyAdapter("postgresql+psycopg://auth@db/app"), ...)

Needs the ``sqlalchemy`` extra and the database's driver (``psycopg``, ``pymysql``;
SQLite's is in the standard library). The adapter runs a synchronous
:class:`~sqlalchemy.engine.Engine` in anyio worker threads, so the same adapter works
on asyncio and trio, and with any driver SQLAlchemy has. It stores in
:class:`AuthModels`: by default Auth.js's tables (``@auth/pg-adapter``'s, see
:mod:`._models`), or your own user model and table names. The adapter does not
create tables unless ``create_tables=True``: use ``models.metadata.create_all(engine)``
or the Alembic migration (``io_bindings/db/sqlalchemy/alembic_0001_auth_tables.py``).
See ``docs/databases/sqlalchemy.md``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import URL, Engine, create_engine

from .._base import StoreAdapter
from ._models import (
    TABLES,
    Account,
    AuthBase,
    Authenticator,
    AuthModels,
    Key,
    Session,
    SessionRevocation,
    User,
    UTCDateTime,
    VerificationToken,
)
from ._store import SQLAlchemyStore

models = _default_models = AuthModels()
"""The default models: Auth.js's tables on :class:`AuthBase` (``models.metadata``)."""

__all__ = [
    "TABLES",
    "Account",
    "AuthBase",
    "AuthModels",
    "Authenticator",
    "Key",
    "SQLAlchemyAdapter",
    "Session",
    "SessionRevocation",
    "UTCDateTime",
    "User",
    "VerificationToken",
    "models",
]


class SQLAlchemyAdapter(StoreAdapter):
    """The SQLAlchemy adapter (``AuthConfig(adapter=SQLAlchemyAdapter(engine))``).

    ``engine`` is a synchronous :class:`~sqlalchemy.engine.Engine` or a URL to make one
    from (with ``engine_options``, e.g. ``pool_size``); ``models`` the
    :class:`AuthModels` to store in (default: :data:`models`). With
    ``create_tables=True`` the adapter creates the tables that are missing when it opens.
    On SQLite the adapter turns foreign keys on (cascading deletes), switches the file to
    WAL and makes each write transaction take the write lock when it begins.
    """

    def __init__(
        self,
        engine: Engine | str | URL,
        models: AuthModels | None = None,
        *,
        create_tables: bool = False,
        **engine_options: Any,
    ) -> None:
        if not isinstance(engine, Engine):
            engine = create_engine(engine, **engine_options)
        elif engine_options:
            raise TypeError("engine options go with a URL, not with an Engine")
        self.engine = engine
        self.models = models or _default_models
        self.store = SQLAlchemyStore(engine, self.models, create_tables=create_tables)
        super().__init__(self.store, threaded=True)
