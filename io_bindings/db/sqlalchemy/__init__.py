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

import asyncio
from typing import Any

from sqlalchemy import URL, Engine, create_engine
from sqlalchemy.ext.asyncio import AsyncEngine

from sansio_auth.adapters import SessionAndUser

from .._accounts import AccountMethods
from .._base import StoreAdapter, session_and_user
from ._asyncio import AsyncioSessions, asyncio_twin
from ._models import (
    TABLES,
    Account,
    AuthBase,
    Authenticator,
    AuthModels,
    CodeList,
    Key,
    RateLimitCounter,
    Session,
    SessionRecord,
    SessionRevocation,
    User,
    UserPassword,
    UserTwoFactor,
    UTCDateTime,
    VerificationToken,
    alembic_render_item,
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
    "CodeList",
    "Key",
    "RateLimitCounter",
    "SQLAlchemyAdapter",
    "Session",
    "SessionRecord",
    "SessionRevocation",
    "UTCDateTime",
    "User",
    "UserPassword",
    "UserTwoFactor",
    "VerificationToken",
    "alembic_render_item",
    "models",
]


class SQLAlchemyAdapter(AccountMethods, StoreAdapter):
    """The SQLAlchemy adapter (``AuthConfig(adapter=SQLAlchemyAdapter(engine))``).

    ``engine`` is a synchronous :class:`~sqlalchemy.engine.Engine` or a URL to make one
    from (with ``engine_options``, e.g. ``pool_size``); ``models`` the
    :class:`AuthModels` to store in (default: :data:`models`). With
    ``create_tables=True`` the adapter creates the tables that are missing when it opens.
    On SQLite the adapter turns foreign keys on (cascading deletes), switches the file to
    WAL and makes each write transaction take the write lock when it begins.

    On asyncio the session check runs on ``async_engine``, an
    :class:`~sqlalchemy.ext.asyncio.AsyncEngine` on the same database; by default one
    made from ``engine``'s URL when its driver runs on asyncio too (psycopg 3), on the
    first event loop that reads a session. ``async_engine=False`` keeps every call in
    worker threads.
    """

    def __init__(
        self,
        engine: Engine | str | URL,
        models: AuthModels | None = None,
        *,
        create_tables: bool = False,
        async_engine: AsyncEngine | bool = True,
        **engine_options: Any,
    ) -> None:
        if not isinstance(engine, Engine):
            if not str(engine).startswith("sqlite"):  # a pool that keeps what it opens
                engine_options = {"pool_size": 10, "max_overflow": 0, **engine_options}
            engine = create_engine(engine, **engine_options)
        elif engine_options:
            raise TypeError("engine options go with a URL, not with an Engine")
        self.engine = engine
        self.models = models or _default_models
        self.store = SQLAlchemyStore(engine, self.models, create_tables=create_tables)
        super().__init__(self.store, threaded=True)
        self._async_engine = async_engine
        self._sessions: AsyncioSessions | None = None

    def _asyncio_sessions(self) -> AsyncioSessions | None:
        """The session check of the running asyncio loop; ``None`` on trio, before the
        store is open, without an asyncio engine, or on a loop other than the first one."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None  # trio
        if not self.is_open or self._async_engine is False:
            return None
        if self._sessions is None:
            given = self._async_engine
            engine = asyncio_twin(self.engine) if given is True else given
            if engine is None:
                self._async_engine = False
                return None
            self._sessions = AsyncioSessions(self.store, engine, loop, own=given is True)
        return self._sessions if self._sessions.loop is loop else None

    async def get_user_object(self, user_id: str) -> Any:
        """The user ``user_id`` as an instance of the models' ``User`` (your own model when
        :class:`AuthModels` names one), detached from the session that loaded it (its
        columns are loaded; a relationship it did not load raises), or ``None``. What
        FastAPI's ``Depends(auth_result.current_user)`` gives an endpoint."""
        return await self._run(self.store.get_user_object, user_id)

    async def get_session_and_user(self, session_token: str) -> SessionAndUser | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_session_and_user` (on asyncio with an
        asyncio engine: one query, no worker thread)."""
        sessions = self._asyncio_sessions()
        if sessions is None:
            return await super().get_session_and_user(session_token)
        return session_and_user(await sessions.session_and_user(session_token))

    async def aclose(self) -> None:
        """Release connections (those of the asyncio engine too, when it is ours)."""
        sessions, self._sessions = self._sessions, None
        if sessions is not None and self._async_engine is True:
            try:
                same_loop = sessions.loop is asyncio.get_running_loop()
            except RuntimeError:
                same_loop = False
            if same_loop:
                await sessions.close()
        await super().aclose()
