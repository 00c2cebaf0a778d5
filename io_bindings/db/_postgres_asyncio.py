"""The PostgreSQL session check (and session extension) on asyncio, without a worker thread.

The session check is the one adapter call of every request (with the extension of the
session's expiry, every ``update_age``), and on asyncio handing it to a worker thread and
back costs several times the query itself. So on asyncio they run on psycopg's async pool
(bound to the event loop it was made on); every other call, and every call on trio, goes
through the synchronous store in worker threads.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from psycopg import AsyncConnection
from psycopg.rows import tuple_row
from psycopg_pool import AsyncConnectionPool

from ._sockets import quiet

if TYPE_CHECKING:
    from ._base import Record


class SessionStatements(Protocol):
    """What the session calls need of the PostgreSQL store (:class:`.postgres.PostgresStore`):
    where it connects and the statements it composed, so that this module does not import
    the store's (which imports this one)."""

    dsn: str
    prepare: bool
    max_size: int
    timeout: float
    connection_options: dict[str, Any]
    session_and_user: bytes

    def session_and_user_records(self, row: tuple[Any, ...]) -> tuple[Record, Record]: ...
    def session_update(self, update: Record) -> tuple[Any, Any]: ...
    def session_record(self, row: Any) -> Record | None: ...
    def contract_errors(self) -> AbstractContextManager[None]: ...


class Sessions(Protocol):
    """The asyncio session calls: :class:`AsyncioSessions` (psycopg) or
    :class:`._postgres_asyncpg.AsyncpgSessions`."""

    loop: asyncio.AbstractEventLoop

    async def session_and_user(self, session_token: str) -> tuple[Record, Record] | None: ...
    async def update_session(self, update: Record) -> Record | None: ...
    async def close(self) -> None: ...


AsyncConnectionType = AsyncConnection[dict[str, Any]]


async def _is_sound(conn: AsyncConnectionType) -> None:
    """The pool's check: a round trip only when the socket is not quiet."""
    if not quiet(conn.fileno()):
        await AsyncConnectionPool.check_connection(conn)


class AsyncioSessions:
    """``get_session_and_user`` and ``update_session`` of ``store`` on a pool of async
    connections on ``loop`` (the same statements as the store's)."""

    def __init__(self, store: SessionStatements, loop: asyncio.AbstractEventLoop) -> None:
        self.store, self.loop = store, loop
        self.pool: AsyncConnectionPool[AsyncConnectionType] = AsyncConnectionPool(
            store.dsn,
            min_size=1,
            max_size=store.max_size,
            timeout=store.timeout,
            kwargs=store.connection_options,
            check=_is_sound,
            open=False,
        )

    async def session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        """The session of ``session_token`` and its user. A cancelled read (a deadline)
        returns at once: psycopg cancels the query, and the pool drops the connection."""
        await self.pool.open()  # at once when open already
        async with self.pool.connection() as conn, conn.cursor(row_factory=tuple_row) as cur:
            await cur.execute(self.store.session_and_user, (session_token,))
            row = await cur.fetchone()
        return None if row is None else self.store.session_and_user_records(row)

    async def update_session(self, update: Record) -> Record | None:
        """The session ``update`` changed (normalised), ``None`` if there is none."""
        query, params = self.store.session_update(update)
        with self.store.contract_errors():
            await self.pool.open()
            async with self.pool.connection() as conn:
                row = await (await conn.execute(query, params)).fetchone()
        return self.store.session_record(row)

    async def close(self) -> None:
        """Close the pool's connections."""
        await self.pool.close()
