"""The session check on asyncio without a worker thread: SQLAlchemy's asyncio engine.

The session check is the one adapter call of every request, and on asyncio handing it to
a worker thread and back costs more than the query. So where the engine's driver also
runs on asyncio (psycopg 3: ``postgresql+psycopg://``), or an asyncio engine is given,
the check runs on an :class:`~sqlalchemy.ext.asyncio.AsyncEngine` bound to the first
event loop that uses it; every other call, and every call on trio, goes through the
synchronous store in worker threads.

On psycopg the check skips SQLAlchemy's execution layer and psycopg's cursor, which cost
several times the query: its statement, compiled once, is sent through libpq
(:mod:`.._libpq`, as the PostgreSQL store's read) on the driver's own connection checked out
of the asyncio engine's pool, prepared once per connection unless the connection prepares
nothing (psycopg's ``prepare_threshold=None``, for PgBouncer); each value goes through the
result processor of its column's type (and each parameter through its bind processor), as
SQLAlchemy would apply them, so custom types (:class:`~io_bindings.db.sqlalchemy.UTCDateTime`,
your own) read the same. Engines with execution events (``before_cursor_execute``, tracing)
or echo keep the ordinary path.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, QueuePool, Select, exc
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.util import greenlet_spawn

from .._cancel import Background, RunningQuery, cancel_until_done
from .._sockets import quiet

if TYPE_CHECKING:
    from .._base import Record
    from ._store import SQLAlchemyStore

_CONNECTION_EVENTS = ("before_execute", "after_execute", "before_cursor_execute",
                      "after_cursor_execute")  # fmt: skip
_DIALECT_EVENTS = ("do_execute", "do_execute_no_params", "handle_error")
_PYFORMAT = re.compile(r"%\(([^)]+)\)s|%%")
_IDLE = 0  # psycopg's TransactionStatus.IDLE (psycopg is imported only where it is used)
_KEPT = "sansio_auth_driver_query"  # the key of :class:`_OnConnection` in a connection's ``info``
CANCEL_SECONDS = 10.0
"""How long the cancel of a cut read's query, and reading it to its end, may take."""


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


def numbered(query: str) -> tuple[str, list[str]]:
    """``query`` as SQLAlchemy renders it for psycopg (``%(name)s`` parameters) with
    PostgreSQL's ``$1``, ``$2``… instead; the parameters' names in that order."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match[0] == "%%":
            return "%"
        if match[1] not in names:
            names.append(match[1])
        return f"${names.index(match[1]) + 1}"

    return _PYFORMAT.sub(number, query), names


class _OnConnection:
    """What a driver connection of the pool keeps for :class:`DriverQuery`: its row loaders
    and parameter dumpers, and the statements prepared on it."""

    __slots__ = ("conn", "encoding", "loaders", "prepared")

    def __init__(self, conn: Any, transformer: Callable[[Any], Any]) -> None:
        self.conn, self.loaders, self.encoding = conn, transformer(conn), conn.info.encoding
        self.prepared: set[bytes] = set()


class DriverQuery:
    """A ``SELECT`` of one row sent through libpq on the driver's connection (psycopg's
    ``AsyncConnection``) of ``engine``'s pool: compiled once, prepared once per connection,
    parameters and values processed by their types."""

    def __init__(self, engine: AsyncEngine, statement: Select[Any], *, keep: bool = False) -> None:
        from psycopg.adapt import PyFormat, Transformer
        from psycopg.errors import InvalidSqlStatementName

        from .._libpq import results

        dialect = engine.dialect
        self.engine, self.keep = engine, keep
        self._idle: list[Any] = []  # connections of the pool kept between reads (``keep``)
        self.compiled = statement.compile(dialect=dialect)
        self.query, self.names = numbered(self.compiled.string)
        self.name = b"sansio_auth_" + hashlib.sha256(self.query.encode()).hexdigest()[:16].encode()
        self.formats = [PyFormat.TEXT] * len(self.names)  # typed by the server, as literals
        self.transformer, self.results = Transformer, results
        self.unknown_statement = InvalidSqlStatementName
        binds = self.compiled.binds.items()
        self.bind_processors = {
            name: process
            for name, bind in binds
            if (process := bind.type.dialect_impl(dialect).bind_processor(dialect))
        }
        self.types = [column.type.dialect_impl(dialect) for column in statement.selected_columns]
        self.result_processors: list[tuple[int, Callable[[Any], Any]]] | None = None

    @staticmethod
    def suits(engine: AsyncEngine) -> bool:
        """Whether statements may skip ``engine``'s execution layer: psycopg with its own
        parameter style, no execution events, no echo."""
        sync = engine.sync_engine
        events = [getattr(sync.dispatch, name) for name in _CONNECTION_EVENTS]
        events += [getattr(sync.dialect.dispatch, name) for name in _DIALECT_EVENTS]
        dialect = sync.dialect
        psycopg = dialect.driver == "psycopg" and dialect.paramstyle == "pyformat"
        return psycopg and not any(events) and not sync.echo

    async def first(self, params: Mapping[str, Any], running: RunningQuery) -> Sequence[Any] | None:
        """The first row for ``params``, its values as SQLAlchemy would give them (the
        driver's connection in ``running`` while the query runs)."""
        if self.bind_processors or not all(name in params for name in self.names):
            values = self.compiled.construct_params(params)  # defaults, then processors
            for name, process in self.bind_processors.items():
                values[name] = process(values[name])
            params = values
        raw = await self._checkout()
        try:
            with running.on(raw.driver_connection):
                row = await self._row(raw, [params[name] for name in self.names])
        except BaseException:
            await self._release(raw, keep=False)
            raise
        await self._release(raw, keep=self.keep)
        if row is None:
            return None
        for i, load in self.result_processors or ():
            row[i] = load(row[i])
        return tuple(row)

    async def _checkout(self) -> Any:
        """A connection of the pool: one kept from an earlier read if its socket is quiet
        (the server has not closed it), else one checked out of the pool."""
        while self._idle:
            raw = self._idle.pop()
            if quiet(raw.driver_connection.fileno()):
                return raw
            await self._release(raw, keep=False, broken=True)
        return await self.engine.raw_connection()

    async def _release(self, raw: Any, *, keep: bool, broken: bool = False) -> None:
        """``raw`` after a read: kept for the next one (``keep``) or given back to the pool
        if it is idle; closed if it is ``broken`` or in the middle of a query."""
        conn = raw.driver_connection
        if broken or conn.closed or conn.pgconn.transaction_status != _IDLE:
            await greenlet_spawn(raw.invalidate)  # closed in SQLAlchemy's async context
            raw.close()
        elif keep:
            self._idle.append(raw)
        else:
            raw.close()

    def give_back(self) -> None:
        """Give the kept connections back to the pool."""
        idle, self._idle = self._idle, []
        for raw in idle:
            raw.close()

    async def _row(self, raw: Any, params: list[Any]) -> list[Any] | None:
        """The statement's first row on ``raw`` (a pooled connection), as psycopg loads it:
        one round trip, after the statement's preparation on a connection new to it (or
        no longer prepared on it: a ``DISCARD ALL`` since)."""
        conn = raw.driver_connection
        kept = raw.info.get(_KEPT)
        if kept is None or kept.conn is not conn:
            kept = raw.info[_KEPT] = _OnConnection(conn, self.transformer)
        loaders, pgconn, loop = kept.loaders, conn.pgconn, asyncio.get_running_loop()
        args = loaders.dump_sequence(params, self.formats)
        result = None
        if conn.prepare_threshold is None:  # prepares nothing (PgBouncer): one unnamed statement
            pgconn.send_query_params(self.query.encode(kept.encoding), args)
            result = await self.results(loop, pgconn)
        elif self.name in kept.prepared:
            pgconn.send_query_prepared(self.name, args)
            try:
                result = await self.results(loop, pgconn)
            except self.unknown_statement:
                kept.prepared.discard(self.name)
        if result is None:
            pgconn.send_prepare(self.name, self.query.encode(kept.encoding))
            await self.results(loop, pgconn)
            kept.prepared.add(self.name)
            pgconn.send_query_prepared(self.name, args)
            result = await self.results(loop, pgconn)
        if not result.ntuples:
            return None
        if self.result_processors is None:
            dialect = self.engine.dialect
            processors = (
                kind.result_processor(dialect, result.ftype(i)) for i, kind in enumerate(self.types)
            )
            self.result_processors = [(i, p) for i, p in enumerate(processors) if p is not None]
        loaders.set_pgresult(result)
        return loaders.load_row(0, list)  # type: ignore[no-any-return]


class AsyncioSessions:
    """``get_session_and_user`` of ``store`` on ``engine``, an asyncio engine used on ``loop``
    (``own``: made by the adapter for these reads alone, which keep its connections between
    reads, as a pool of their own)."""

    def __init__(
        self,
        store: SQLAlchemyStore,
        engine: AsyncEngine,
        loop: asyncio.AbstractEventLoop,
        *,
        own: bool = False,
    ) -> None:
        self.store, self.engine, self.loop = store, engine, loop
        self.settling = Background(loop)
        suits = DriverQuery.suits(engine)
        self.direct = DriverQuery(engine, store.session_check, keep=own) if suits else None

    async def session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        """The session of ``session_token`` and its user. The read runs in a task of its
        own, which a deadline does not cancel: a cancelled read returns at once, its query
        is cancelled in the server, and the task ends on that error as on any other, its
        connection given back by SQLAlchemy in its own async context."""
        running = RunningQuery()
        read = self.loop.create_task(self._first({"token": session_token}, running))
        try:
            row = await asyncio.shield(read)
        except asyncio.CancelledError:
            self.settling.start(cancel_until_done(read, running, CANCEL_SECONDS))
            raise
        return None if row is None else self.store.session_and_user_records(row)

    async def _first(
        self, params: Mapping[str, Any], running: RunningQuery
    ) -> Sequence[Any] | None:
        if self.direct is not None:
            return await self.direct.first(params, running)
        async with self.engine.connect() as conn:  # SQLAlchemy's execution: its events see it
            with running.on((await conn.get_raw_connection()).driver_connection):
                result = await conn.execute(self.store.session_check, params)
            return result.first()

    async def close(self) -> None:
        """Close the asyncio engine's connections (once those of cancelled reads are back)."""
        await self.settling.wait()
        if self.direct is not None:
            self.direct.give_back()
        await self.engine.dispose()
