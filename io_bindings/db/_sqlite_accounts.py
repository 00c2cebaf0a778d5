"""The SQLite store's part for the account features (beyond Auth.js), mixed into
:class:`~.sqlite.SQLiteStore`: password hashes and second factors (``user_passwords``,
``user_two_factors``), session rows with their device, the user's sessions listed, and the
records of JWT sessions (``session_records``, no foreign key: a credentials user is not
stored). The methods of :class:`~._accounts.AccountStoreMethods`."""

from __future__ import annotations

import contextlib
import sqlite3
from datetime import datetime
from typing import Any

import msgspec

from ._base import Record, device_of, format_time, parse_time, with_sid

PASSWORDS_MIGRATION: tuple[str, ...] = (
    """CREATE TABLE user_passwords (
        user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        hash TEXT NOT NULL
    )""",
    """CREATE TABLE user_two_factors (
        user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        totp_secret TEXT NOT NULL,
        totp_last_step INTEGER,
        recovery_codes TEXT NOT NULL,
        enabled_at TEXT NOT NULL
    )""",
)
"""Schema version 3: password hashes and second factors."""

_SELECT = (
    "SELECT user_id, totp_secret, totp_last_step, recovery_codes, enabled_at "
    "FROM user_two_factors WHERE user_id = ?"
)


def _two_factor(row: sqlite3.Row | None) -> Record | None:
    if row is None:
        return None
    return {
        "user_id": row["user_id"],
        "totp_secret": row["totp_secret"],
        "totp_last_step": row["totp_last_step"],
        "recovery_codes": msgspec.json.decode(row["recovery_codes"]),
        "enabled_at": parse_time(row["enabled_at"]),
    }


SESSIONS_MIGRATION: tuple[str, ...] = (
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
"""Schema version 5: sessions with their device; JWT session records."""


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
    """A session row (its ``sid`` and device columns read too) as a session (those keys
    when set)."""
    session = {
        "session_token": row["session_token"],
        "user_id": row["user_id"],
        "expires": parse_time(row["expires"]),
    }
    return with_sid({**session, **_device(row)}, row["sid"])


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


class SQLiteAccounts:
    """The methods, on the store's connections (its ``_connection``, ``_write`` and
    ``_query``)."""

    def _connection(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError  # the store's

    def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError  # the store's

    def _query(self, sql: str, *params: Any) -> sqlite3.Row | None:
        raise NotImplementedError  # the store's

    def get_password_hash(self, user_id: str) -> str | None:
        row = self._query("SELECT hash FROM user_passwords WHERE user_id = ?", user_id)
        return None if row is None else str(row["hash"])

    def set_password_hash(self, user_id: str, password_hash: str | None) -> None:
        with self._write() as conn:
            if password_hash is None:
                conn.execute("DELETE FROM user_passwords WHERE user_id = ?", (user_id,))
                return
            conn.execute(
                "INSERT INTO user_passwords (user_id, hash) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash",
                (user_id, password_hash),
            )

    def get_two_factor(self, user_id: str) -> Record | None:
        return _two_factor(self._query(_SELECT, user_id))

    def set_two_factor(self, record: Record) -> Record:
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO user_two_factors "
                "(user_id, totp_secret, totp_last_step, recovery_codes, enabled_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    record["user_id"],
                    record["totp_secret"],
                    record["totp_last_step"],
                    msgspec.json.encode(record["recovery_codes"]).decode(),
                    format_time(record["enabled_at"]),
                ),
            )
        return record

    def delete_two_factor(self, user_id: str) -> Record | None:
        with self._write() as conn:
            found = _two_factor(conn.execute(_SELECT, (user_id,)).fetchone())
            conn.execute("DELETE FROM user_two_factors WHERE user_id = ?", (user_id,))
        return found

    def use_totp_step(self, user_id: str, step: int) -> bool:
        with self._write() as conn:
            return (
                conn.execute(
                    "UPDATE user_two_factors SET totp_last_step = ? WHERE user_id = ? "
                    "AND (totp_last_step IS NULL OR totp_last_step < ?)",
                    (step, user_id, step),
                ).rowcount
                == 1
            )

    def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        with self._write() as conn:
            row = conn.execute(
                "SELECT recovery_codes FROM user_two_factors WHERE user_id = ?", (user_id,)
            ).fetchone()
            codes = [] if row is None else msgspec.json.decode(row["recovery_codes"])
            if code_hash not in codes:
                return False
            codes.remove(code_hash)
            conn.execute(
                "UPDATE user_two_factors SET recovery_codes = ? WHERE user_id = ?",
                (msgspec.json.encode(codes).decode(), user_id),
            )
            return True

    def list_sessions_by_user_id(self, user_id: str) -> list[Record]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT session_token, user_id, expires, sid, created_at, last_seen_at, "
                "user_agent, ip_address FROM sessions WHERE user_id = ?",
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
