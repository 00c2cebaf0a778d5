"""The PostgreSQL store's password hashes and second factors (:mod:`._accounts`), in tables
named and spelt like Auth.js's (quoted camelCase columns)."""

from __future__ import annotations

import contextlib
from datetime import UTC
from typing import Any

import psycopg

from ._accounts import Record

Connection = psycopg.Connection[dict[str, Any]]

MIGRATION: tuple[str, ...] = (
    # "userId" takes the type of users.id (integer for Auth.js's SERIAL; text or uuid for
    # tables of one's own)
    """DO $$
    DECLARE id_type TEXT;
    BEGIN
        SELECT format_type(atttypid, atttypmod) INTO id_type FROM pg_attribute
        WHERE attrelid = 'users'::regclass AND attname = 'id';
        EXECUTE format('CREATE TABLE IF NOT EXISTS user_passwords (
            "userId" %s NOT NULL REFERENCES users ON DELETE CASCADE,
            hash TEXT NOT NULL,
            PRIMARY KEY ("userId")
        )', id_type);
        EXECUTE format('CREATE TABLE IF NOT EXISTS user_two_factors (
            "userId" %s NOT NULL REFERENCES users ON DELETE CASCADE,
            "totpSecret" TEXT NOT NULL,
            "totpLastStep" BIGINT,
            "recoveryCodes" TEXT[] NOT NULL,
            "enabledAt" TIMESTAMPTZ NOT NULL,
            PRIMARY KEY ("userId")
        )', id_type);
    END $$""",
)
"""The migration that adds them (password accounts and two-factor)."""


def _two_factor(row: dict[str, Any] | None) -> Record | None:
    if row is None:
        return None
    return {
        "user_id": str(row["userId"]),
        "totp_secret": row["totpSecret"],
        "totp_last_step": row["totpLastStep"],
        "recovery_codes": list(row["recoveryCodes"]),
        "enabled_at": row["enabledAt"].astimezone(UTC),
    }


class PostgresAccounts:
    """Mixed into :class:`~.postgres.PostgresStore`."""

    def _key(self, user_id: str) -> Any:
        raise NotImplementedError

    def _owner(self, user_id: str) -> Any:
        raise NotImplementedError

    def _one(self, query: Any, params: Any = ()) -> dict[str, Any] | None:
        raise NotImplementedError

    def _connection(self) -> contextlib.AbstractContextManager[Connection]:
        raise NotImplementedError

    def get_password_hash(self, user_id: str) -> str | None:
        key = self._key(user_id)
        if key is None:
            return None
        row = self._one('SELECT hash FROM user_passwords WHERE "userId" = %s', (key,))
        return None if row is None else str(row["hash"])

    def set_password_hash(self, user_id: str, password_hash: str | None) -> None:
        with self._connection() as conn:
            if password_hash is None:
                key = self._key(user_id)
                if key is not None:
                    conn.execute('DELETE FROM user_passwords WHERE "userId" = %s', (key,))
                return
            conn.execute(
                'INSERT INTO user_passwords ("userId", hash) VALUES (%s, %s) '
                'ON CONFLICT ("userId") DO UPDATE SET hash = excluded.hash',
                (self._owner(user_id), password_hash),
            )

    def get_two_factor(self, user_id: str) -> Record | None:
        key = self._key(user_id)
        if key is None:
            return None
        return _two_factor(self._one('SELECT * FROM user_two_factors WHERE "userId" = %s', (key,)))

    def set_two_factor(self, record: Record) -> Record:
        row = self._one(
            'INSERT INTO user_two_factors ("userId", "totpSecret", "totpLastStep", '
            '"recoveryCodes", "enabledAt") VALUES (%s, %s, %s, %s, %s) '
            'ON CONFLICT ("userId") DO UPDATE SET "totpSecret" = excluded."totpSecret", '
            '"totpLastStep" = excluded."totpLastStep", '
            '"recoveryCodes" = excluded."recoveryCodes", "enabledAt" = excluded."enabledAt" '
            "RETURNING *",
            (
                self._owner(record["user_id"]),
                record["totp_secret"],
                record["totp_last_step"],
                record["recovery_codes"],
                record["enabled_at"],
            ),
        )
        found = _two_factor(row)
        assert found is not None
        return found

    def delete_two_factor(self, user_id: str) -> Record | None:
        key = self._key(user_id)
        if key is None:
            return None
        return _two_factor(
            self._one('DELETE FROM user_two_factors WHERE "userId" = %s RETURNING *', (key,))
        )

    def use_totp_step(self, user_id: str, step: int) -> bool:
        key = self._key(user_id)
        if key is None:
            return False
        row = self._one(
            'UPDATE user_two_factors SET "totpLastStep" = %s WHERE "userId" = %s '
            'AND ("totpLastStep" IS NULL OR "totpLastStep" < %s) RETURNING "userId"',
            (step, key, step),
        )
        return row is not None

    def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        key = self._key(user_id)
        if key is None:
            return False
        row = self._one(
            'UPDATE user_two_factors SET "recoveryCodes" = array_remove("recoveryCodes", %s) '
            'WHERE "userId" = %s AND %s = ANY("recoveryCodes") RETURNING "userId"',
            (code_hash, key, code_hash),
        )
        return row is not None
