"""What our schema adds to the tables of Auth.js's ``@auth/pg-adapter``: one description that
the SQL stores opening a database Auth.js made (the PostgreSQL and SQLAlchemy stores) migrate
it forward by, in the same way.

The columns are nullable: Auth.js's adapter neither reads nor writes them, and the rows it
wrote have none. The tables of ours that such a database lacks are made beside them.
"""

from __future__ import annotations

from collections.abc import Iterable

ADDED_COLUMNS: dict[str, dict[str, str]] = {
    "sessions": {
        "sid": "TEXT",  # the provider session, for back-channel logout
        "createdAt": "TIMESTAMPTZ",  # the device, for the user's list of sessions
        "lastSeenAt": "TIMESTAMPTZ",
        "userAgent": "TEXT",
        "ipAddress": "TEXT",
    },
}
"""Auth.js's table → the columns ours adds to it → their PostgreSQL type."""

MIGRATION_LOCK = 0x5A_A17A_0001
"""The PostgreSQL advisory lock (``pg_advisory_xact_lock``) a store holds while it migrates
the schema: one migrator at a time, whichever store it is."""


def add_columns(table: str, names: Iterable[str]) -> str:
    """PostgreSQL's statement adding to ``table`` those of its ``names`` it lacks."""
    types = ADDED_COLUMNS[table]
    added = ", ".join(f'ADD COLUMN IF NOT EXISTS "{name}" {types[name]}' for name in names)
    return f"ALTER TABLE {table} {added}"
