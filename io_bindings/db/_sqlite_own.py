"""The SQLite store's part for a user's own sessions (not in Auth.js): session rows with their
device, the user's sessions listed, and the records of JWT sessions (``session_records``,
no foreign key: a credentials user is not stored)."""

from __future__ import annotations

import contextlib
import sqlite3
from datetime import datetime
from typing import Any

from ._base import Record, device_of, format_time, parse_time

MIGRATION = (
    "ALTER TABLE sessions ADD COLUMN created_at TEXT",
    "ALTER TABLE sessions ADD COLUMN last_seen_at TEXT",
    "ALTER TABLE sessions ADD COLUMN user_agent TEXT",
    "ALTER TABLE sessions ADD COLUMN ip_address TEXT",
    """CREATE TABLE session_records (
        sid TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        expires TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        user_agent TEXT,
        ip_address TEXT
    )""",
    "CREATE INDEX session_records_user_id ON session_records (user_id)",
)
"""The schema migration that adds them."""


def _device(row: sqlite3.Row) -> Record:
    return device_of(
        {
            "created_at": row["created_at"] and parse_time(row["created_at"]),
            "last_seen_at": row["last_seen_at"] and parse_time(row["last_seen_at"]),
            "user_agent": row["user_agent"],
            "ip_address": row["ip_address"],
        }
    )


def session_row(row: sqlite3.Row) -> Record:
    """A session row (its device columns read too) as a session (device keys when set)."""
    session = {
        "session_token": row["session_token"],
        "user_id": row["user_id"],
        "expires": parse_time(row["expires"]),
    }
    return {**session, **_device(row)}


def _time(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)


def device_params(record: Record) -> tuple[Any, ...]:
    """The values of the device columns for ``record``."""
    return (
        _time(record.get("created_at")),
        _time(record.get("last_seen_at")),
        record.get("user_agent"),
        record.get("ip_address"),
    )


def _record(row: sqlite3.Row | None) -> Record | None:
    if row is None:
        return None
    found = {"sid": row["sid"], "user_id": row["user_id"], "expires": parse_time(row["expires"])}
    return {**found, **_device(row)}


class OwnSessions:
    """The methods, on the store's connections (its ``_connection`` and ``_write``)."""

    def _connection(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError  # the store's

    def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError  # the store's

    def list_sessions_by_user_id(self, user_id: str) -> list[Record]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT session_token, user_id, expires, created_at, last_seen_at, user_agent, "
                "ip_address FROM sessions WHERE user_id = ?",
                (user_id,),
            ).fetchall()
        return [session_row(row) for row in rows]

    def create_session_record(self, record: Record) -> Record:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO session_records (sid, user_id, expires, created_at, last_seen_at, "
                "user_agent, ip_address) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    record["sid"],
                    record["user_id"],
                    format_time(record["expires"]),
                    *device_params(record),
                ),
            )
        return record

    def touch_session_record(
        self, sid: str, last_seen_at: datetime, expires: datetime
    ) -> Record | None:
        with self._write() as conn:
            return _record(
                _first(
                    conn.execute(
                        "UPDATE session_records SET last_seen_at = ?, expires = ? WHERE sid = ? "
                        "RETURNING sid, user_id, expires, created_at, last_seen_at, user_agent, "
                        "ip_address",
                        (format_time(last_seen_at), format_time(expires), sid),
                    )
                )
            )

    def list_session_records(self, user_id: str) -> list[Record]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT sid, user_id, expires, created_at, last_seen_at, user_agent, ip_address "
                "FROM session_records WHERE user_id = ?",
                (user_id,),
            ).fetchall()
        return [r for r in map(_record, rows) if r is not None]

    def delete_session_record(self, sid: str) -> Record | None:
        with self._write() as conn:
            cursor = conn.execute(
                "DELETE FROM session_records WHERE sid = ? RETURNING sid, user_id, expires, "
                "created_at, last_seen_at, user_agent, ip_address",
                (sid,),
            )
            return _record(_first(cursor))


def _first(cursor: sqlite3.Cursor) -> sqlite3.Row | None:
    rows = cursor.fetchall()
    return rows[0] if rows else None
