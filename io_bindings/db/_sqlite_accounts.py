"""The SQLite store's password hashes and second factors (:mod:`._accounts`)."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any

import msgspec

from ._accounts import Record
from ._base import format_time, parse_time

MIGRATION: tuple[str, ...] = (
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
"""The migration that adds them (password accounts and two-factor)."""

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


class SQLiteAccounts:
    """Mixed into :class:`~.sqlite.SQLiteStore`."""

    def _query(self, sql: str, *params: Any) -> sqlite3.Row | None:
        raise NotImplementedError

    def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

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
