"""The PostgreSQL session check (and session extension) on asyncio, without a worker thread.

The session check is the one adapter call of every request (with the extension of the
session's expiry, every ``update_age``), and on asyncio handing it to a worker thread and
back costs several times the query itself. So on asyncio they run on async psycopg
connections made on the event loop; every other call, and every call on trio, goes
through the synchronous store in worker threads.

The session check drives libpq itself (psycopg's documented :mod:`psycopg.pq` wrapper and
its row loaders): psycopg's cursor and asyncio waits cost about twice the query's own
work in the client (measured in process: ~85 against ~35 µs of CPU per read). It is one
round trip: a statement prepared once per connection (``Bind``/``Execute`` after that), or,
with ``prepare=False`` (PgBouncer in transaction mode), the statement sent with its
parameters, unnamed (``Parse``/``Bind``/``Execute`` in one message).

The connections are held in a small pool of our own: a semaphore of ``max_size`` slots and
a list of idle connections, each checked without a round trip (:func:`._sockets.quiet`)
when it is taken. A connection that failed mid-call is closed; one whose call was cancelled
(a deadline) keeps its slot while a task of its own cancels the query in the server and
reads it to its end (:func:`._libpq.settle`), then goes back to the idle ones: the caller returns at
once, no query of a gone caller keeps running, and the server never sees more than
``max_size`` connections of this pool.
"""

from __future__ import annotations

import asyncio
import re
from contextlib import AbstractContextManager, asynccontextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from psycopg import AsyncConnection, DatabaseError, pq
from psycopg.adapt import Transformer
from psycopg_pool import PoolTimeout

from ._cancel import Background, RunningQuery, cancel_until_done
from ._libpq import results, settle
from ._sockets import quiet

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

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


AsyncConnectionType = AsyncConnection[dict[str, Any]]
_PLACEHOLDER = re.compile(rb"%s|%%")
_STATEMENT = b"sansio_auth_session_and_user"


@lru_cache(maxsize=8)
def numbered(query: bytes) -> bytes:
    """``query`` with psycopg's ``%s`` placeholders as PostgreSQL's ``$1``, ``$2``…"""
    numbers = iter(range(1, query.count(b"%s") + 1))
    return _PLACEHOLDER.sub(lambda m: b"%" if m[0] == b"%%" else b"$%d" % next(numbers), query)


class _Connection:
    """A pooled connection: psycopg's, its row loaders and text encoding, whether the read
    is prepared on it."""

    __slots__ = ("conn", "encoding", "loaders", "prepared")

    def __init__(self, conn: AsyncConnectionType) -> None:
        self.conn, self.loaders, self.prepared = conn, Transformer(conn), False
        self.encoding = conn.info.encoding


class AsyncioSessions:
    """``get_session_and_user`` and ``update_session`` of ``store`` on up to ``max_size``
    async connections on ``loop`` (the same statements as the store's)."""

    def __init__(self, store: SessionStatements, loop: asyncio.AbstractEventLoop) -> None:
        self.store, self.loop = store, loop
        self._session_and_user = numbered(store.session_and_user)
        self._slots = asyncio.Semaphore(store.max_size)
        self._idle: list[_Connection] = []
        self._settling = Background(loop)

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[_Connection]:
        """An idle connection (or a new one) for one call; waits ``timeout`` for a slot. A
        call cancelled mid-query leaves its connection (and its slot) to :meth:`_settle`."""
        if self._slots.locked():
            try:
                async with asyncio.timeout(self.store.timeout):
                    await self._slots.acquire()
            except TimeoutError:
                raise PoolTimeout(
                    f"no PostgreSQL connection free after {self.store.timeout} s"
                ) from None
        else:
            await self._slots.acquire()  # at once
        settling = False
        try:
            pooled = None
            while self._idle and pooled is None:
                pooled = self._idle.pop()
                if pooled.conn.closed or not quiet(pooled.conn.fileno()):
                    await pooled.conn.close()  # the server closed it (a restart) or is closing
                    pooled = None
            if pooled is None:
                pooled = _Connection(await self._connect())
            try:
                yield pooled
            except asyncio.CancelledError:
                settling = True
                self._settling.start(self._settle(pooled))
                raise
            except BaseException:
                await _discard(pooled.conn)
                raise
            if pooled.conn.pgconn.transaction_status == pq.TransactionStatus.IDLE:
                self._idle.append(pooled)
            else:
                await _discard(pooled.conn)
        finally:
            if not settling:
                self._slots.release()

    async def _settle(self, pooled: _Connection) -> None:
        """What a cancelled call left on ``pooled``: its query cancelled in the server (a
        write rolled back) and read to its end, then the connection back among the idle
        ones (closed if that fails within ``timeout``); its slot free after that."""
        try:
            idle = await settle(pooled.conn, self.loop, self.store.timeout)
            if idle and self.store.prepare and not pooled.prepared:
                try:  # the read's statement may be prepared or not: neither, now
                    async with asyncio.timeout(self.store.timeout):
                        await pooled.conn.execute("DEALLOCATE ALL")
                except (OSError, TimeoutError, DatabaseError):
                    idle = False
            if idle:
                self._idle.append(pooled)
            else:
                await _discard(pooled.conn)
        finally:
            self._slots.release()

    async def _connect(self) -> AsyncConnectionType:
        """A new connection, within ``timeout`` (as the store's pool waits for one)."""
        try:
            async with asyncio.timeout(self.store.timeout):
                return await AsyncConnection.connect(
                    self.store.dsn, **self.store.connection_options
                )
        except TimeoutError:
            raise PoolTimeout(f"no PostgreSQL connection made in {self.store.timeout} s") from None

    async def session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        """The session of ``session_token`` and its user. A cancelled read (a deadline)
        returns at once; its query is cancelled in the server (:meth:`_settle`)."""
        if "\0" in session_token:  # libpq would cut it there; no stored token has one
            return None
        async with self._connection() as pooled:
            pgconn, params = pooled.conn.pgconn, [session_token.encode(pooled.encoding)]
            if not self.store.prepare:
                pgconn.send_query_params(self._session_and_user, params)
            else:
                if not pooled.prepared:
                    pgconn.send_prepare(_STATEMENT, self._session_and_user)
                    await results(self.loop, pgconn)
                    pooled.prepared = True
                pgconn.send_query_prepared(_STATEMENT, params)
            result = await results(self.loop, pgconn)
            if not result.ntuples:
                return None
            pooled.loaders.set_pgresult(result)
            row = pooled.loaders.load_row(0, tuple)
        return self.store.session_and_user_records(row)

    async def update_session(self, update: Record) -> Record | None:
        """The session ``update`` changed (normalised), ``None`` if there is none. It runs
        in a task of its own, which a deadline does not cancel (psycopg, cancelled twice
        mid-query, would close the connection and leave the query running): a cancelled
        call returns at once, and its statement is cancelled in the server instead."""
        query, params = self.store.session_update(update)
        running = RunningQuery()
        write = self.loop.create_task(self._update_session(query, params, running))
        try:
            row = await asyncio.shield(write)
        except asyncio.CancelledError:
            self._settling.start(cancel_until_done(write, running, self.store.timeout))
            raise
        return self.store.session_record(row)

    async def _update_session(
        self, query: Any, params: Any, running: RunningQuery
    ) -> dict[str, Any] | None:
        with self.store.contract_errors():
            async with self._connection() as pooled:
                with running.on(pooled.conn):
                    return await (await pooled.conn.execute(query, params)).fetchone()

    async def close(self) -> None:
        """Close the idle connections (once those of cancelled calls are settled)."""
        await self._settling.wait()
        idle, self._idle = self._idle, []
        for pooled in idle:
            await pooled.conn.close()


async def _discard(conn: AsyncConnectionType) -> None:
    """Close ``conn`` at once, whatever it was doing (a cancelled call leaves it busy)."""
    conn.pgconn.finish()
    await conn.close()
