"""The session check on asyncio without a worker thread: SQLAlchemy's asyncio engine.

The session check is the one adapter call of every request, and on asyncio handing it to
a worker thread and back costs more than the query. So where the engine's driver also
runs on asyncio (psycopg 3: ``postgresql+psycopg://``), or an asyncio engine is given,
the check runs on an :class:`~sqlalchemy.ext.asyncio.AsyncEngine` bound to the first
event loop that uses it; every other call, and every call on trio, goes through the
synchronous store in worker threads.

On psycopg the check skips SQLAlchemy's execution layer, which costs more than the query: its
statement, compiled once, runs on the driver's own connection checked out of the asyncio
engine's pool, and each value goes through the result processor of its column's type (and
each parameter through its bind processor), as SQLAlchemy would apply them, so custom types
(:class:`~io_bindings.db.sqlalchemy.UTCDateTime`, your own) read the same. Engines with
execution events (``before_cursor_execute``, tracing) or echo keep the ordinary path.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, QueuePool, Select, exc
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.util import greenlet_spawn

from .._cancel import Background, RunningQuery, cancel_until_done

if TYPE_CHECKING:
    from .._base import Record
    from ._store import SQLAlchemyStore

_CONNECTION_EVENTS = ("before_execute", "after_execute", "before_cursor_execute",
                      "after_cursor_execute")  # fmt: skip
_DIALECT_EVENTS = ("do_execute", "do_execute_no_params", "handle_error")
_IDLE = 0  # psycopg's TransactionStatus.IDLE (psycopg is not imported unless it is used)
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


class DriverQuery:
    """A ``SELECT`` of one row run on the driver's connection (psycopg's ``AsyncConnection``)
    of ``engine``'s pool: compiled once, parameters and values processed by their types."""

    def __init__(self, engine: AsyncEngine, statement: Select[Any]) -> None:
        dialect = engine.dialect
        self.engine = engine
        self.compiled = statement.compile(dialect=dialect)
        binds = self.compiled.binds.items()
        self.bind_processors = {
            name: process
            for name, bind in binds
            if (process := bind.type.dialect_impl(dialect).bind_processor(dialect))
        }
        self.types = [column.type.dialect_impl(dialect) for column in statement.selected_columns]
        self.result_processors: list[Callable[[Any], Any] | None] | None = None

    @staticmethod
    def suits(engine: AsyncEngine) -> bool:
        """Whether statements may skip ``engine``'s execution layer: psycopg, no execution
        events, no echo."""
        sync = engine.sync_engine
        events = [getattr(sync.dispatch, name) for name in _CONNECTION_EVENTS]
        events += [getattr(sync.dialect.dispatch, name) for name in _DIALECT_EVENTS]
        return sync.dialect.driver == "psycopg" and not any(events) and not sync.echo

    async def first(
        self, params: Mapping[str, Any], running: RunningQuery | None = None
    ) -> Sequence[Any] | None:
        """The first row for ``params``, its values as SQLAlchemy would give them (the
        driver's connection in ``running`` while the query runs)."""
        values = self.compiled.construct_params(params)
        for name, process in self.bind_processors.items():
            values[name] = process(values[name])
        raw = await self.engine.raw_connection()
        conn: Any = raw.driver_connection
        try:
            with (running or RunningQuery()).on(conn):
                async with conn.cursor() as cursor:
                    await cursor.execute(self.compiled.string, values)
                    row = await cursor.fetchone()
                    if self.result_processors is None:
                        self.result_processors = self._processors(cursor.description)
        except BaseException:
            if conn.closed or conn.info.transaction_status != _IDLE:
                await greenlet_spawn(raw.invalidate)  # closed in SQLAlchemy's async context
            raise
        finally:
            raw.close()
        if row is None:
            return None
        pairs = zip(self.result_processors, row, strict=True)
        return tuple(value if process is None else process(value) for process, value in pairs)

    def _processors(self, description: Any) -> list[Callable[[Any], Any] | None]:
        dialect = self.engine.dialect
        return [
            kind.result_processor(dialect, column.type_code)
            for kind, column in zip(self.types, description, strict=True)
        ]


class AsyncioSessions:
    """``get_session_and_user`` of ``store`` on ``engine``, an asyncio engine used on ``loop``."""

    def __init__(
        self, store: SQLAlchemyStore, engine: AsyncEngine, loop: asyncio.AbstractEventLoop
    ) -> None:
        self.store, self.engine, self.loop = store, engine, loop
        self.settling = Background(loop)
        suits = DriverQuery.suits(engine)
        self.direct = DriverQuery(engine, store.session_check) if suits else None

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
        await self.engine.dispose()
