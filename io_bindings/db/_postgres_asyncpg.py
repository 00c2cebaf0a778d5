"""The PostgreSQL session check (and session extension) on asyncio with asyncpg.

Measured over HTTP (``make bench``, the bare query rows), a handler that only runs the
session check answers about twice as many requests per second on asyncpg as on psycopg's
async connections: psycopg's asyncio waits and cursors cost more than the query. So when
asyncpg is installed (the ``postgres`` extra has it) and statements may be prepared, the
session calls of :class:`.postgres.PostgresAdapter` on asyncio run here; otherwise on
:mod:`._postgres_asyncio`. The statements and records are the store's.

Each read is one round trip: asyncpg prepares a statement once per connection (a named
statement in its cache) and then sends only ``Bind``/``Execute``. Without prepared
statements (``prepare=False``, PgBouncer in transaction mode) asyncpg needs a round trip to
prepare an unnamed statement before each execution, so that mode stays on psycopg, whose
unprepared read is one round trip.

The connections are held in a small pool of our own: a semaphore of ``max_size`` slots and
a list of idle connections. asyncpg reads its sockets all the time, so a connection the
server closed is known closed (:meth:`asyncpg.Connection.is_closed`) without a round trip;
one that failed or was cancelled mid-call is closed, not reused.
"""

from __future__ import annotations

import asyncio
import json
import re
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import asyncpg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import PoolTimeout

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from ._base import Record
    from ._postgres_asyncio import SessionStatements

_PLACEHOLDER = re.compile(r"%s|%%")


@lru_cache(maxsize=64)
def numbered(query: str) -> str:
    """``query`` with psycopg's ``%s`` placeholders as PostgreSQL's ``$1``, ``$2``…"""
    numbers = iter(range(1, query.count("%s") + 1))
    return _PLACEHOLDER.sub(lambda m: "%" if m[0] == "%%" else f"${next(numbers)}", query)


def connect_options(dsn: str) -> dict[str, Any]:
    """asyncpg's ``connect`` arguments for a libpq DSN or URL; ``ValueError`` if it has a
    parameter they cannot say (the psycopg session calls are used then)."""
    options: dict[str, Any] = {}
    for key, value in conninfo_to_dict(dsn).items():
        if key in ("host", "user", "password"):
            options[key] = value
        elif key == "port":
            options["port"] = int(str(value))
        elif key == "dbname":
            options["database"] = value
        elif key == "sslmode":
            options["ssl"] = value
        elif key == "application_name":
            options["server_settings"] = {"application_name": value}
        else:
            raise ValueError(f"asyncpg cannot take the connection parameter {key!r}")
    return options


class AsyncpgSessions:
    """``get_session_and_user`` and ``update_session`` of ``store`` on up to ``max_size``
    asyncpg connections on ``loop`` (the same statements as the store's)."""

    def __init__(self, store: SessionStatements, loop: asyncio.AbstractEventLoop) -> None:
        self.store, self.loop = store, loop
        self._options = connect_options(store.dsn)
        self._session_and_user = numbered(store.session_and_user.decode())
        self._slots = asyncio.Semaphore(store.max_size)
        self._idle: list[asyncpg.Connection] = []

    async def _connect(self) -> asyncpg.Connection:
        conn = await asyncpg.connect(**self._options, timeout=self.store.timeout)
        for name in ("json", "jsonb"):  # decoded as psycopg does
            await conn.set_type_codec(
                name, encoder=json.dumps, decoder=json.loads, schema="pg_catalog"
            )
        return conn

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[asyncpg.Connection]:
        """An idle connection (or a new one) for one call; waits ``timeout`` for a slot."""
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
        try:
            conn = None
            while self._idle and conn is None:
                conn = self._idle.pop()
                if conn.is_closed():
                    conn = None
            if conn is None:
                conn = await self._connect()
            try:
                yield conn
            except BaseException:
                conn.terminate()  # it may be mid-query (a cancelled call): not reused
                raise
            self._idle.append(conn)
        finally:
            self._slots.release()

    async def session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        """The session of ``session_token`` and its user. A cancelled read (a deadline)
        returns at once: its connection is closed."""
        async with self._connection() as conn:
            row = await conn.fetchrow(self._session_and_user, session_token)
        return None if row is None else self.store.session_and_user_records(tuple(row))

    async def update_session(self, update: Record) -> Record | None:
        """The session ``update`` changed (normalised), ``None`` if there is none."""
        query, params = self.store.session_update(update)
        text = query if isinstance(query, str) else query.as_string()
        async with self._connection() as conn:
            try:
                row = await conn.fetchrow(numbered(text), *params)
            except asyncpg.ForeignKeyViolationError as err:
                raise LookupError("no such user") from err
        return self.store.session_record(None if row is None else dict(row))

    async def close(self) -> None:
        """Close the idle connections."""
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.close()
