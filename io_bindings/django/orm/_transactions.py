"""How the Django ORM store's calls use Django's database connections: each call on this
thread's connection to the alias ``using``, checked and released by the project's settings
as Django does around a request; writes in one transaction (SQLite's taking the write lock
first), retried after a deadlock, their constraint failures named as the adapter contract
names them."""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from django.db import DatabaseError, IntegrityError, connections, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

from sansio_auth.adapters import AdapterConflict

from ...db._errors import constraint_error, is_transient

T = TypeVar("T")
_ATTEMPTS = 5


def first_row(query: Any) -> Any:
    """The first row of a ``values_list`` query, or ``None``."""
    return next(iter(query[:1]), None)


@contextlib.contextmanager
def _write_lock_first(conn: BaseDatabaseWrapper) -> Iterator[None]:
    """On SQLite, make the next transaction begin with the write lock (``BEGIN IMMEDIATE``)."""
    if conn.vendor != "sqlite":
        yield
        return
    conn.ensure_connection()
    previous = conn.transaction_mode  # type: ignore[attr-defined]
    conn.transaction_mode = "IMMEDIATE"  # type: ignore[attr-defined]
    try:
        yield
    finally:
        conn.transaction_mode = previous  # type: ignore[attr-defined]


class Transactions:
    """The database side of :class:`~io_bindings.django.orm.store.DjangoStore`."""

    def __init__(self, using: str) -> None:
        self.using = using
        self._used: weakref.WeakSet[BaseDatabaseWrapper] = weakref.WeakSet()

    def _objects(self, model: type[models.Model]) -> Any:
        return model._default_manager.using(self.using)

    def in_connection(self, function: Callable[[], T]) -> T:
        """``function()`` with this thread's connection handled as the store's own calls'."""
        with self._connection():
            return function()

    def close(self) -> None:
        """Close the connections this store's calls opened, in whichever thread."""
        for conn in list(self._used):
            conn.inc_thread_sharing()
            try:
                conn.close()
            finally:
                conn.dec_thread_sharing()
        self._used.clear()

    @contextlib.contextmanager
    def _connection(self) -> Iterator[BaseDatabaseWrapper]:
        """This thread's connection, checked and released by the project's settings as
        Django does when a request starts and ends."""
        conn = connections[self.using]
        self._used.add(conn)
        conn.close_if_unusable_or_obsolete()
        try:
            yield conn
        finally:
            conn.close_if_unusable_or_obsolete()

    def _read(self, work: Callable[[], T]) -> T:
        with self._connection():
            return work()

    def _write(self, work: Callable[[], T]) -> T:
        """``work()`` in one write transaction, again after a deadlock; constraint failures
        named as the contract names them (a foreign key is checked at commit)."""
        for attempt in range(_ATTEMPTS):
            try:
                with (
                    self._connection() as conn,
                    _write_lock_first(conn),
                    transaction.atomic(using=self.using),
                ):
                    return work()
            except IntegrityError as err:
                raise (constraint_error(err.__cause__) or err) from err
            except DatabaseError as err:
                if not is_transient(err.__cause__) or attempt == _ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def _first_write_wins(self, work: Callable[[], None]) -> None:
        """``work()`` again when a racing transaction inserted the same key first (then
        ``work`` finds and updates that row)."""
        for attempt in range(_ATTEMPTS):
            try:
                self._write(work)
                return
            except AdapterConflict:
                if attempt == _ATTEMPTS - 1:
                    raise
