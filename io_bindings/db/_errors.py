"""What a database driver's error means to a store, for the stores on an ORM (SQLAlchemy,
Django): a constraint failure is a conflict or a missing user, a deadlock is worth a retry.

The driver's own error (``sqlite3``, psycopg, PyMySQL) is what the ORM wraps: SQLAlchemy's
``err.orig``, Django's ``err.__cause__``.
"""

from __future__ import annotations

from typing import Any

from sansio_auth.adapters import AdapterConflict

_UNIQUE = {"23505", 1062, 1586, 2067, 1555}  # PostgreSQL, MySQL, SQLite extended codes
_FOREIGN_KEY = {"23503", 1452, 1216, 787}
_TRANSIENT = {"40001", "40P01", 1213, 1205}  # serialization failure, deadlock, lock timeout


def error_code(error: BaseException | None) -> Any:
    """The database's code of the driver error ``error``: a MySQL number, SQLSTATE or
    SQLite's extended code; ``None`` when it has none."""
    args = getattr(error, "args", ())
    if args and isinstance(args[0], int):  # MySQL's own number (its SQLSTATEs are generic)
        return args[0]
    for name in ("sqlstate", "sqlite_errorcode"):
        code = getattr(error, name, None)
        if code is not None:
            return code
    return None


def constraint_error(error: BaseException | None) -> Exception | None:
    """A constraint failure of the driver error ``error`` as the adapter contract names it:
    :class:`~sansio_auth.adapters.AdapterConflict` (a unique key taken) or
    :class:`LookupError` (no such user); ``None`` for any other failure."""
    code, text = error_code(error), str(error)
    if code in _FOREIGN_KEY or "FOREIGN KEY" in text:
        return LookupError("no such user")
    if code in _UNIQUE or "UNIQUE" in text:
        return AdapterConflict(text)
    return None


def is_transient(error: BaseException | None) -> bool:
    """Whether the driver error ``error`` is a deadlock, serialization failure or lock timeout:
    the transaction may succeed when run again."""
    return error_code(error) in _TRANSIENT
