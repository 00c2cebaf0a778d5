"""One statement's result read from libpq on asyncio, without psycopg's cursor.

psycopg's async cursor and its waits cost about twice a session read's own work in the
client, so the session reads of both PostgreSQL stores (ours and SQLAlchemy on psycopg)
drive libpq through psycopg's documented :mod:`psycopg.pq` wrapper instead: they send a
statement on the connection's ``pgconn`` and read its result here, waiting on the event
loop for its socket. A read cut by a deadline leaves its connection mid-query, with its state
all in libpq: :func:`settle` cancels that query in the server and reads it to its end.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from psycopg import AsyncConnection, DatabaseError, OperationalError, errors, pq


def checked(pgresult: pq.abc.PGresult | None) -> pq.abc.PGresult:
    """``pgresult`` if it succeeded; else its error, as psycopg raises it."""
    if pgresult is None:
        raise OperationalError("the connection to PostgreSQL was lost")
    if pgresult.status in (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK):
        return pgresult
    state = (pgresult.error_field(pq.DiagnosticField.SQLSTATE) or b"").decode()
    try:
        error = errors.lookup(state)
    except KeyError:
        error = DatabaseError
    raise error(pgresult.get_error_message())


async def wait(
    loop: asyncio.AbstractEventLoop, pgconn: pq.abc.PGconn, *, write: bool = False
) -> None:
    """Until ``pgconn``'s socket can be read (or written)."""
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    fd = pgconn.socket
    (loop.add_writer if write else loop.add_reader)(fd, wake)
    try:
        await ready
    finally:
        (loop.remove_writer if write else loop.remove_reader)(fd)


async def results(loop: asyncio.AbstractEventLoop, pgconn: pq.abc.PGconn) -> pq.abc.PGresult:
    """Send what is queued on ``pgconn``, read its result (libpq would block in
    ``get_result`` on what has not arrived: each is read once ``is_busy`` says so)."""
    while pgconn.flush():
        await wait(loop, pgconn, write=True)
    found: list[pq.abc.PGresult] = []
    while True:
        pgconn.consume_input()
        while pgconn.is_busy():
            await wait(loop, pgconn)
            pgconn.consume_input()
        result = pgconn.get_result()
        if result is None:  # the end of the command's results
            return checked(found[0] if found else None)
        found.append(result)


async def settle(
    conn: AsyncConnection[Any], loop: asyncio.AbstractEventLoop, seconds: float
) -> bool:
    """Whether ``conn``, left by a call cancelled mid-query (a deadline), is idle again: its
    query cancelled in the server (the statement, or a write's transaction, fails and is
    rolled back; one that ended first stands) and its results read, within ``seconds``."""
    pgconn = conn.pgconn
    try:
        async with asyncio.timeout(seconds):
            if pgconn.transaction_status == pq.TransactionStatus.ACTIVE:
                await conn.cancel_safe(timeout=seconds)
                with contextlib.suppress(DatabaseError):  # QueryCanceled, as asked
                    await results(loop, pgconn)
    except (OSError, TimeoutError, DatabaseError):
        return False
    return not conn.closed and pgconn.transaction_status == pq.TransactionStatus.IDLE
