"""The session check on asyncio without a worker thread: SQLAlchemy's asyncio engine.

The session check is the one adapter call of every request, and on asyncio handing it to
a worker thread and back costs more than the query. So where the engine's driver also
runs on asyncio (psycopg 3: ``postgresql+psycopg://``), or an asyncio engine is given,
the check runs on an :class:`~sqlalchemy.ext.asyncio.AsyncEngine` bound to the first
event loop that uses it; every other call, and every call on trio, goes through the
synchronous store in worker threads.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import anyio
from sqlalchemy import Engine, QueuePool, exc
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

if TYPE_CHECKING:
    from .._base import Record
    from ._store import SQLAlchemyStore


def asyncio_twin(engine: Engine) -> AsyncEngine | None:
    """An asyncio engine on ``engine``'s URL, ``None`` if its driver cannot run on asyncio
    (PyMySQL, the standard library's sqlite3)."""
    size = engine.pool.size() if isinstance(engine.pool, QueuePool) else 10
    try:  # no overflow: connections opened and closed per request would cost more than waiting
        return create_async_engine(
            engine.url,
            isolation_level="AUTOCOMMIT",
            pool_reset_on_return=None,
            pool_size=size,
            max_overflow=0,
        )
    except exc.InvalidRequestError:
        return None


class AsyncioSessions:
    """``get_session_and_user`` of ``store`` on ``engine``, an asyncio engine used on ``loop``."""

    def __init__(
        self, store: SQLAlchemyStore, engine: AsyncEngine, loop: asyncio.AbstractEventLoop
    ) -> None:
        self.store, self.engine, self.loop = store, engine, loop

    async def session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        """The session of ``session_token`` and its user (a cancelled read still ends first,
        so the connection goes back to the pool clean)."""
        with anyio.CancelScope(shield=True):
            async with self.engine.connect() as conn:
                result = await conn.execute(self.store.session_check, {"token": session_token})
                row = result.first()
        return None if row is None else self.store.session_and_user_records(row)

    async def close(self) -> None:
        """Close the asyncio engine's connections."""
        await self.engine.dispose()
