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
or echo keep the ordinary path. A read a deadline cuts returns at once; its connection stays
out of the pool until its query is cancelled in the server and read to its end.
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

    __slots__ = ("encoding", "loaders", "prepared")

    def __init__(self, conn: Any, transformer: Callable[[Any], Any]) -> None:
        self.loaders, self.encoding = transformer(conn), conn.info.encoding
        self.prepared: set[bytes] = set()


class DriverQuery:
    """A ``SELECT`` of one row sent through libpq on the driver's connection (psycopg's
    ``AsyncConnection``) of ``engine``'s pool: compiled once, prepared once per connection,
    parameters and values processed by their types."""

    def __init__(
        self, engine: AsyncEngine, statement: Select[Any], settling: Background, *, keep: bool
    ) -> None:
        from psycopg.adapt import PyFormat, Transformer
        from psycopg.errors import InvalidSqlStatementName

        from .._libpq import results, settle

        dialect = engine.dialect
        self.engine, self.keep = engine, keep
        self._idle: list[Any] = []  # connections of the pool kept between reads (``keep``)
        self.compiled = statement.compile(dialect=dialect)
        self.query, self.names = numbered(self.compiled.string)
        self.name = b"sansio_auth_" + hashlib.sha256(self.query.encode()).hexdigest()[:16].encode()
        self.formats = [PyFormat.TEXT] * len(self.names)  # typed by the server, as literals
        self.transformer, self.results, self.settle = Transformer, results, settle
        self.settling = settling  # the reads cut or failed mid-query, settling
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

    async def first(self, params: Mapping[str, Any]) -> Sequence[Any] | None:
        """The first row for ``params``, its values as SQLAlchemy would give them. A read
        cut (a deadline) or failed mid-query leaves its connection to :meth:`_settle`."""
        if self.bind_processors or not all(name in params for name in self.names):
            values = self.compiled.construct_params(params)  # defaults, then processors
            for name, process in self.bind_processors.items():
                values[name] = process(values[name])
            params = values
        raw = await self._checkout()
        try:
            row = await self._row(raw, [params[name] for name in self.names])
        except BaseException:
            self.settling.start(self._settle(raw))
            raise
        if self.keep:
            self._idle.append(raw)
        else:
            await _give_back(raw)
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
            await _give_back(raw, broken=True)
        return await self.engine.raw_connection()

    async def _settle(self, raw: Any) -> None:
        """What a cut or failed read left on ``raw``: its query, if it still runs, cancelled
        in the server and read to its end (:func:`.._libpq.settle`), then ``raw`` back to the
        pool; closed instead if that fails, or if whether the statement is prepared on it is
        not known (the read stopped in its preparation). The pool slot is held until then."""
        conn, kept = raw.driver_connection, raw.info.get(_KEPT)
        idle = await self.settle(conn, asyncio.get_running_loop(), CANCEL_SECONDS)
        known = conn.prepare_threshold is None or (kept is not None and self.name in kept.prepared)
        await _give_back(raw, broken=not (idle and known))

    async def give_back(self) -> None:
        """Give the kept connections back to the pool."""
        idle, self._idle = self._idle, []
        for raw in idle:
            await _give_back(raw)

    async def _row(self, raw: Any, params: list[Any]) -> list[Any] | None:
        """The statement's first row on ``raw`` (a pooled connection), as psycopg loads it:
        one round trip, after the statement's preparation on a connection new to it (or
        no longer prepared on it: a ``DISCARD ALL`` or ``DEALLOCATE`` run since by other
        users of an engine the adapter was given)."""
        conn = raw.driver_connection
        kept = raw.info.get(_KEPT)  # ``info`` is emptied when the pool opens a new connection
        if kept is None:
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
        check = store.session_check
        self.direct = DriverQuery(engine, check, self.settling, keep=own) if suits else None

    async def session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        """The session of ``session_token`` and its user. A read cut by a deadline returns at
        once and its query is cancelled in the server: on the driver's connection by
        :meth:`DriverQuery.first`; on SQLAlchemy's execution the read runs in a task of its
        own, which a deadline does not cancel (its connection is given back by SQLAlchemy,
        in its own async context, once the cancelled query has ended)."""
        params = {"token": session_token}
        if self.direct is not None:
            row = await self.direct.first(params)
        else:
            running = RunningQuery()
            read = self.loop.create_task(self._first(params, running))
            try:
                row = await asyncio.shield(read)
            except asyncio.CancelledError:
                self.settling.start(cancel_until_done(read, running, CANCEL_SECONDS))
                raise
        return None if row is None else self.store.session_and_user_records(row)

    async def _first(
        self, params: Mapping[str, Any], running: RunningQuery
    ) -> Sequence[Any] | None:
        async with self.engine.connect() as conn:  # SQLAlchemy's execution: its events see it
            with running.on((await conn.get_raw_connection()).driver_connection):
                result = await conn.execute(self.store.session_check, params)
            return result.first()

    async def close(self) -> None:
        """Close the asyncio engine's connections (once those of cancelled reads are back)."""
        await self.settling.wait()
        if self.direct is not None:
            await self.direct.give_back()
        await self.engine.dispose()


async def _give_back(raw: Any, *, broken: bool = False) -> None:
    """Give ``raw`` back to its pool, closed first if it is ``broken`` (or in a state not
    known), in SQLAlchemy's async context: closing, or the pool's reset on return (a
    rollback), may talk to the server (outside it: ``MissingGreenlet``, logged as an error)."""

    def give_back() -> None:
        if broken:
            raw.invalidate()
        raw.close()

    await greenlet_spawn(give_back)
