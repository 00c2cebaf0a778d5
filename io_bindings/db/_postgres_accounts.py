"""The PostgreSQL store's part for the account features (beyond Auth.js), mixed into
:class:`~.postgres.PostgresStore`, in tables named and spelt like Auth.js's (quoted camelCase
columns): password hashes and second factors (``user_passwords``, ``user_two_factors``),
session rows with their device (``"createdAt"``, ``"lastSeenAt"``, ``"userAgent"``,
``"ipAddress"``: the names Better Auth gives them), and the records of JWT sessions
(``session_records``; ``"userId"`` is text and has no foreign key: a credentials user is not
stored). The methods of :class:`~._accounts.AccountStoreMethods`."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import Any

import psycopg

from ._authjs_tables import add_columns
from ._base import Record, device_of

Connection = psycopg.Connection[dict[str, Any]]

PASSWORDS_MIGRATION: tuple[str, ...] = (
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
"""Schema version 3: password hashes and second factors."""


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


DEVICE_COLUMNS = {
    "created_at": "createdAt",
    "last_seen_at": "lastSeenAt",
    "user_agent": "userAgent",
    "ip_address": "ipAddress",
}
"""Each device key's column (in ``sessions`` and ``session_records``)."""
SESSIONS_MIGRATION: tuple[str, ...] = (
    add_columns("sessions", DEVICE_COLUMNS.values()),
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
"""Schema version 5: sessions with their device; JWT session records."""
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


class PostgresAccounts:
    """The methods, on the store's connections and helpers (declared here, defined by the
    store)."""

    def _connection(self) -> contextlib.AbstractContextManager[Connection]:
        raise NotImplementedError  # the store's

    def _one(self, query: Any, params: Any = ()) -> dict[str, Any] | None:
        raise NotImplementedError  # the store's

    def _key(self, user_id: str) -> Any:
        raise NotImplementedError  # the store's

    def _owner(self, user_id: str) -> Any:
        raise NotImplementedError  # the store's

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
