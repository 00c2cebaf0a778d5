"""The PostgreSQL store's part for a user's own sessions (not in Auth.js): session rows with
their device (``"createdAt"``, ``"lastSeenAt"``, ``"userAgent"``, ``"ipAddress"``: the names
Better Auth gives them, quoted camelCase as Auth.js's columns), the user's sessions listed,
and the records of JWT sessions (``session_records``; ``"userId"`` is text and has no
foreign key: a credentials user is not stored)."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import Any

import psycopg

from ._base import Record, device_of

MIGRATION = (
    'ALTER TABLE sessions ADD COLUMN IF NOT EXISTS "createdAt" TIMESTAMPTZ, '
    'ADD COLUMN IF NOT EXISTS "lastSeenAt" TIMESTAMPTZ, '
    'ADD COLUMN IF NOT EXISTS "userAgent" TEXT, ADD COLUMN IF NOT EXISTS "ipAddress" TEXT',
    """CREATE TABLE IF NOT EXISTS session_records (
        sid TEXT PRIMARY KEY,
        "userId" TEXT NOT NULL,
        expires TIMESTAMPTZ NOT NULL,
        "createdAt" TIMESTAMPTZ NOT NULL,
        "lastSeenAt" TIMESTAMPTZ NOT NULL,
        "userAgent" TEXT,
        "ipAddress" TEXT
    )""",
    'CREATE INDEX IF NOT EXISTS session_records_user_id ON session_records ("userId")',
)
"""The schema migration that adds them."""
DEVICE_COLUMNS = {
    "created_at": "createdAt",
    "last_seen_at": "lastSeenAt",
    "user_agent": "userAgent",
    "ip_address": "ipAddress",
}
"""Each device key's column (in ``sessions`` and ``session_records``)."""
EXTEND_AND_SEE = (
    'UPDATE sessions SET expires = %s, "lastSeenAt" = %s WHERE "sessionToken" = %s RETURNING *'
)
"""The session extension of every ``update_age`` (a prepared statement of its own)."""


def _utc(value: Any) -> Any:
    return value.astimezone(UTC) if isinstance(value, datetime) else value


def device_row(row: dict[str, Any]) -> Record:
    """The device keys of a row of ``sessions`` or ``session_records`` (those that are set)."""
    return device_of({key: _utc(row.get(column)) for key, column in DEVICE_COLUMNS.items()})


def device_values(record: Record) -> dict[str, Any]:
    """Column → value for the device keys ``record`` has."""
    return {DEVICE_COLUMNS[k]: v for k, v in record.items() if k in DEVICE_COLUMNS}


def _record(row: dict[str, Any] | None) -> Record | None:
    if row is None:
        return None
    found = {"sid": row["sid"], "user_id": row["userId"], "expires": _utc(row["expires"])}
    return {**found, **device_row(row)}


Connection = psycopg.Connection[dict[str, Any]]


class OwnSessions:
    """The record methods, on the store's connections (its ``_connection`` and ``_one``)."""

    def _connection(self) -> contextlib.AbstractContextManager[Connection]:
        raise NotImplementedError  # the store's

    def _one(self, query: Any, params: Any = ()) -> dict[str, Any] | None:
        raise NotImplementedError  # the store's

    def create_session_record(self, record: Record) -> Record:
        values = (record["sid"], record["user_id"], record["expires"])
        values += tuple(record.get(key) for key in DEVICE_COLUMNS)
        self._one(
            'INSERT INTO session_records (sid, "userId", expires, "createdAt", "lastSeenAt", '
            '"userAgent", "ipAddress") VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING sid',
            values,
        )
        return record

    def touch_session_record(
        self, sid: str, last_seen_at: datetime, expires: datetime
    ) -> Record | None:
        row = self._one(
            'UPDATE session_records SET "lastSeenAt" = %s, expires = %s WHERE sid = %s RETURNING *',
            (last_seen_at, expires, sid),
        )
        return _record(row)

    def list_session_records(self, user_id: str) -> list[Record]:
        with self._connection() as conn:
            rows = conn.execute(
                'SELECT * FROM session_records WHERE "userId" = %s', (user_id,)
            ).fetchall()
        return [r for r in map(_record, rows) if r is not None]

    def delete_session_record(self, sid: str) -> Record | None:
        return _record(self._one("DELETE FROM session_records WHERE sid = %s RETURNING *", (sid,)))


UNLINK_ACCOUNT = (
    "WITH gone AS (DELETE FROM accounts "
    'WHERE provider = %s AND "providerAccountId" = %s RETURNING *), '
    "passkeys AS (DELETE FROM authenticators a USING gone WHERE gone.type = 'webauthn' "
    'AND a."userId" = gone."userId" AND a."providerAccountId" = gone."providerAccountId") '
    "SELECT * FROM gone"
)
"""Unlink an account, and a passkey account's authenticators with it, in one statement."""
