"""The PostgreSQL adapter: psycopg 3 with a connection pool, on Auth.js's own tables.

>>> from io_bindings.db.postgres import PostgresAdapter
>>> config = AuthConfig(adapter=PostgresAdapter("postgresql://auth@db/app"), providers=[...])

Needs the ``postgres`` extra (``psycopg[binary]``, ``psycopg-pool``). psycopg's
async API runs only on asyncio, so this adapter uses the synchronous
:class:`psycopg_pool.ConnectionPool` in anyio worker threads: the same adapter
works on asyncio and trio. Each method is one transaction: connections are in
autocommit mode, so a method that is one statement costs one round trip (no
``BEGIN``/``COMMIT``), and methods of several statements open an explicit
transaction. Statements are prepared on first use (``prepare_threshold=0``), and a
session check is one prepared ``JOIN`` of ``sessions`` and ``users``. Behind a pooler that
hands a client's statements to any server connection (PgBouncer in ``transaction`` or
``statement`` mode, before 1.21 or without ``max_prepared_statements``) give
``prepare=False``: a statement prepared on one server connection does not exist on the
next, and two clients' statements of one name would collide.

The tables are those of ``@auth/pg-adapter`` (``users``, ``accounts``,
``sessions``, ``verification_token`` with their quoted camelCase columns and
``SERIAL`` ids), created when missing, so a JavaScript app on Auth.js and a
Python app can share one database; ``authenticators`` (passkeys) is added in the
same style. User ids are the ``users.id`` column as text: the id the engine
proposes is not used when the column has a default (``SERIAL``). Keys that are
not standard are written when a column of that name exists (extend the
tables as Auth.js documents) and dropped otherwise, as upstream does.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, cast

import psycopg
from psycopg import errors, sql
from psycopg.rows import dict_row, tuple_row
from psycopg_pool import ConnectionPool

from sansio_auth.adapters import AdapterConflict, AdapterSession, SessionAndUser, SessionUpdate

from ._accounts import AccountMethods
from ._authjs_tables import MIGRATION_LOCK, add_columns
from ._base import (
    PURGE_INTERVAL,
    Every,
    Record,
    StoreAdapter,
    normal_session_update,
    session_and_user,
    with_sid,
)
from ._cancel import stoppable
from ._postgres_accounts import (
    DEVICE_COLUMNS,
    EXTEND_AND_SEE,
    PASSWORDS_MIGRATION,
    SESSIONS_MIGRATION,
    UNLINK_ACCOUNT,
    PostgresAccounts,
    device_row,
    device_values,
)
from ._postgres_asyncio import AsyncioSessions
from ._sockets import quiet

Connection = psycopg.Connection[dict[str, Any]]
"""A psycopg connection whose rows are dictionaries."""

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # version 1: @auth/pg-adapter's schema.sql, plus authenticators and indexes
        """CREATE TABLE IF NOT EXISTS users (
            id SERIAL,
            name VARCHAR(255),
            email VARCHAR(255) UNIQUE,
            "emailVerified" TIMESTAMPTZ,
            image TEXT,
            PRIMARY KEY (id)
        )""",
        """CREATE TABLE IF NOT EXISTS accounts (
            id SERIAL,
            "userId" INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
            type VARCHAR(255) NOT NULL,
            provider VARCHAR(255) NOT NULL,
            "providerAccountId" VARCHAR(255) NOT NULL,
            refresh_token TEXT,
            access_token TEXT,
            expires_at BIGINT,
            id_token TEXT,
            scope TEXT,
            session_state TEXT,
            token_type TEXT,
            PRIMARY KEY (id),
            UNIQUE (provider, "providerAccountId")
        )""",
        """CREATE TABLE IF NOT EXISTS sessions (
            id SERIAL,
            "userId" INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
            expires TIMESTAMPTZ NOT NULL,
            "sessionToken" VARCHAR(255) UNIQUE NOT NULL,
            PRIMARY KEY (id)
        )""",
        """CREATE TABLE IF NOT EXISTS verification_token (
            identifier TEXT NOT NULL,
            expires TIMESTAMPTZ NOT NULL,
            token TEXT NOT NULL,
            PRIMARY KEY (identifier, token)
        )""",
        """CREATE TABLE IF NOT EXISTS authenticators (
            "credentialID" TEXT NOT NULL,
            "userId" INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
            "providerAccountId" TEXT NOT NULL,
            "credentialPublicKey" TEXT NOT NULL,
            counter BIGINT NOT NULL,
            "credentialDeviceType" TEXT NOT NULL,
            "credentialBackedUp" BOOLEAN NOT NULL,
            transports TEXT,
            PRIMARY KEY ("credentialID")
        )""",
        'CREATE INDEX IF NOT EXISTS accounts_user_id ON accounts ("userId")',
        'CREATE INDEX IF NOT EXISTS sessions_user_id ON sessions ("userId")',
        'CREATE INDEX IF NOT EXISTS authenticators_user_id ON authenticators ("userId")',
    ),
    (  # version 2: revocable sessions
        """CREATE TABLE IF NOT EXISTS session_revocations (
            key TEXT PRIMARY KEY,
            "notBefore" TIMESTAMPTZ NOT NULL
        )""",
    ),
    PASSWORDS_MIGRATION,  # version 3: password hashes and second factors
    (  # version 4: sessions keep their provider session; marks expire; rate-limit counters
        add_columns("sessions", ["sid"]),
        "CREATE INDEX IF NOT EXISTS sessions_sid ON sessions (sid)",
        "ALTER TABLE session_revocations ADD COLUMN IF NOT EXISTS expires TIMESTAMPTZ",
        "CREATE INDEX IF NOT EXISTS session_revocations_expires ON session_revocations (expires)",
        """CREATE TABLE IF NOT EXISTS rate_limit_counters (
            key TEXT PRIMARY KEY,
            count INTEGER NOT NULL,
            "resetAt" TIMESTAMPTZ NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS rate_limit_counters_reset_at "
        'ON rate_limit_counters ("resetAt")',
    ),
    SESSIONS_MIGRATION,  # version 5: sessions with their device; JWT session records
)
"""Schema migrations: entry ``n`` takes the schema from version ``n`` to ``n + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version this adapter migrates a database to (the number of migrations)."""

# Our snake_case keys and Auth.js's column names (same name when absent).
USER_COLUMNS = {"id": "id", "email": "email", "email_verified": "emailVerified"}
"""Our user record's keys and the ``users`` table's columns (Auth.js's names)."""
USER_COLUMNS |= {"name": "name", "image": "image"}
ACCOUNT_COLUMNS = {"user_id": "userId", "provider_account_id": "providerAccountId"}
"""Our account record's keys and the ``accounts`` table's columns (Auth.js's names)."""
ACCOUNT_COLUMNS |= {k: k for k in ("type", "provider", "access_token", "token_type", "id_token")}
ACCOUNT_COLUMNS |= {k: k for k in ("refresh_token", "scope", "expires_at", "session_state")}
AUTHENTICATOR_COLUMNS = {
    "credential_id": "credentialID",
    "user_id": "userId",
    "provider_account_id": "providerAccountId",
    "credential_public_key": "credentialPublicKey",
    "counter": "counter",
    "credential_device_type": "credentialDeviceType",
    "credential_backed_up": "credentialBackedUp",
    "transports": "transports",
}
"""Our passkey record's keys and the ``authenticators`` table's columns (Auth.js's names)."""
_INTEGER_TYPES = {"smallint", "integer", "bigint"}
# A new mark (or a later one), in one statement with the purge of expired marks (but this
# key's: one statement cannot both delete and upsert a row).
_SET_NOT_BEFORE = (
    "WITH purged AS (DELETE FROM session_revocations WHERE expires <= %s AND key <> %s) "
    'INSERT INTO session_revocations (key, "notBefore", expires) VALUES (%s, %s, %s) '
    'ON CONFLICT (key) DO UPDATE SET "notBefore" = '
    'GREATEST(session_revocations."notBefore", excluded."notBefore"), expires = CASE '
    "WHEN session_revocations.expires IS NULL OR excluded.expires IS NULL THEN NULL "
    "ELSE GREATEST(session_revocations.expires, excluded.expires) END"
)
_INCREMENT = (
    'INSERT INTO rate_limit_counters (key, count, "resetAt") VALUES (%s, 1, %s) '
    "ON CONFLICT (key) DO UPDATE SET count = CASE "
    'WHEN rate_limit_counters."resetAt" <= %s THEN 1 ELSE rate_limit_counters.count + 1 END, '
    '"resetAt" = CASE WHEN rate_limit_counters."resetAt" <= %s '
    'THEN excluded."resetAt" ELSE rate_limit_counters."resetAt" END '
    'RETURNING count, "resetAt"'
)
_EXTEND_SESSION = 'UPDATE sessions SET expires = %s WHERE "sessionToken" = %s RETURNING *'


def _from_row(row: dict[str, Any], columns: dict[str, str], drop: tuple[str, ...]) -> Record:
    """A row as a record: known columns renamed, ``drop`` left out, the rest kept as named."""
    names = {column: key for key, column in columns.items()}
    record = {names.get(c, c): v for c, v in row.items() if c not in drop}
    for key, value in record.items():
        if isinstance(value, datetime):
            record[key] = value.astimezone(UTC)
    if "user_id" in record:
        record["user_id"] = str(record["user_id"])
    return record


def _user_record(row: dict[str, Any]) -> Record:
    user = _from_row(row, USER_COLUMNS, ())
    user["id"] = str(user["id"])
    return user


def _user(row: dict[str, Any] | None) -> Record | None:
    return None if row is None else _user_record(row)


def _account(row: dict[str, Any] | None) -> Record | None:
    return None if row is None else _from_row(row, ACCOUNT_COLUMNS, ("id",))


def _session(row: dict[str, Any] | None) -> Record | None:
    if row is None:
        return None
    session = {
        "session_token": row["sessionToken"],
        "user_id": str(row["userId"]),
        "expires": row["expires"].astimezone(UTC),
    }
    return with_sid({**session, **device_row(row)}, row.get("sid"))


def _token(row: dict[str, Any] | None) -> Record | None:
    if row is None:
        return None
    return {
        "identifier": row["identifier"],
        "token": row["token"],
        "expires": row["expires"].astimezone(UTC),
    }


def _authenticator(row: dict[str, Any] | None) -> Record | None:
    return None if row is None else _from_row(row, AUTHENTICATOR_COLUMNS, ())


def _is_sound(conn: Connection) -> None:
    """The pool's check of a connection it hands out: raises (and the pool replaces the
    connection) if it is broken; a round trip only when the socket is not :func:`quiet`."""
    if not quiet(conn.fileno()):
        ConnectionPool.check_connection(conn)


def _session_and_user(user_columns: list[str]) -> sql.Composed:
    """The session check: the session's columns, then ``user_columns`` of its user."""
    return sql.SQL(
        'SELECT s."sessionToken", s."userId", s.expires, s.sid, s."createdAt", s."lastSeenAt", '
        's."userAgent", s."ipAddress", {} FROM sessions s '
        'JOIN users u ON u.id = s."userId" WHERE s."sessionToken" = %s'
    ).format(sql.SQL(", ").join(sql.Identifier("u", c) for c in user_columns))


def _insert(table: str, values: dict[str, Any]) -> sql.Composed:
    """``INSERT INTO table (columns) VALUES (...) RETURNING *`` for ``values``."""
    return sql.SQL("INSERT INTO {} ({}) VALUES ({}) RETURNING *").format(
        sql.Identifier(table),
        sql.SQL(", ").join(map(sql.Identifier, values)),
        sql.SQL(", ").join(sql.Placeholder() * len(values)),
    )


class PostgresStore(PostgresAccounts):
    """The synchronous store behind :class:`PostgresAdapter`."""

    def __init__(
        self, dsn: str, *, min_size: int, max_size: int, timeout: float, prepare: bool = True
    ) -> None:
        self.dsn, self.min_size, self.max_size, self.timeout = dsn, min_size, max_size, timeout
        self.prepare = prepare
        self.connection_options: dict[str, Any] = {
            "row_factory": dict_row,
            "autocommit": True,
            "prepare_threshold": 0 if prepare else None,  # None: never prepared server-side
        }
        self._pool: ConnectionPool[Connection] | None = None
        self.columns: dict[str, set[str]] = {}
        self.serial_ids = True
        self.id_type = "integer"
        self.user_columns: list[str] = []  # the order of the session check's user columns
        self.session_and_user = b""  # that query, composed once
        self._purge = Every(PURGE_INTERVAL)

    @property
    def pool(self) -> ConnectionPool[Connection]:
        """The connection pool (made by :meth:`open`)."""
        if self._pool is None:
            raise RuntimeError("the PostgreSQL adapter is not open")
        return self._pool

    def open(self) -> None:
        """Connect, create or migrate the schema, and learn the tables' columns."""
        self._pool = ConnectionPool(
            self.dsn,
            min_size=self.min_size,
            max_size=self.max_size,
            timeout=self.timeout,
            kwargs=self.connection_options,
            check=_is_sound,  # drop connections a restart cut
            open=False,
        )
        self._pool.open(wait=True, timeout=self.timeout)
        with self._transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            conn.execute("CREATE TABLE IF NOT EXISTS sansio_auth_schema (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM sansio_auth_schema").fetchone()
            version = 0 if row is None else int(row["version"])
            if version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"the database has auth schema version {version}; this version of "
                    f"sansio-auth knows up to {SCHEMA_VERSION}"
                )
            for statements in MIGRATIONS[version:]:
                for statement in statements:
                    conn.execute(statement.encode(), prepare=False)
            if row is None:
                conn.execute("INSERT INTO sansio_auth_schema VALUES (%s)", (SCHEMA_VERSION,))
            else:
                conn.execute("UPDATE sansio_auth_schema SET version = %s", (SCHEMA_VERSION,))
            rows = conn.execute(
                "SELECT table_name, column_name, data_type, column_default "
                "FROM information_schema.columns WHERE table_schema = current_schema() "
                "AND table_name IN ('users', 'accounts')"
            ).fetchall()
        for row in rows:
            self.columns.setdefault(row["table_name"], set()).add(row["column_name"])
            if row["table_name"] == "users" and row["column_name"] == "id":
                self.serial_ids = row["column_default"] is not None
                self.id_type = row["data_type"]
        self.user_columns = sorted(self.columns["users"])
        with self.pool.connection() as conn:
            self.session_and_user = _session_and_user(self.user_columns).as_bytes(conn)

    def close(self) -> None:
        """Close the pool."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Connection]:
        """A connection of the pool (autocommit: each statement is its own transaction);
        failures named as in the contract. A deadline cancels its query in the server."""
        with (
            self.contract_errors(),
            self.pool.connection() as conn,
            stoppable(partial(conn.cancel_safe, timeout=self.timeout)),
        ):
            yield conn

    @staticmethod
    @contextlib.contextmanager
    def contract_errors() -> Iterator[None]:
        """Constraint failures named as in the adapter contract."""
        try:
            yield
        except errors.UniqueViolation as err:
            raise AdapterConflict(str(err)) from err
        except errors.ForeignKeyViolation as err:
            raise LookupError("no such user") from err

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """One transaction of several statements, committed on success."""
        with self._connection() as conn, conn.transaction():
            yield conn

    def _key(self, user_id: str) -> Any:
        """``user_id`` as the ``users.id`` column takes it, or ``None`` if no row can have it."""
        if self.id_type in _INTEGER_TYPES:
            return (
                int(user_id)
                if user_id.isascii() and user_id.isdigit() and len(user_id) < 19
                else None
            )
        if self.id_type == "uuid":
            try:
                return uuid.UUID(user_id)
            except ValueError:
                return None
        return user_id

    def _owner(self, user_id: str) -> Any:
        key = self._key(user_id)
        if key is None:
            raise LookupError(f"no user with id {user_id!r}")
        return key

    def _columns(self, table: str, record: Record, columns: dict[str, str]) -> dict[str, Any]:
        """Column → value for ``record``: standard keys renamed, others only if a column exists."""
        known = self.columns.get(table, set())
        values = {columns[k]: v for k, v in record.items() if k in columns}
        values |= {k: v for k, v in record.items() if k not in columns and k in known}
        return values

    def _one(self, query: Any, params: Any = ()) -> dict[str, Any] | None:
        with self._connection() as conn:
            return conn.execute(query, params).fetchone()

    def create_user(self, user: Record) -> Record:
        with self._connection() as conn:
            return self._insert_user(conn, user)

    def _insert_user(self, conn: Connection, user: Record) -> Record:
        values = self._columns("users", user, USER_COLUMNS)
        if self.serial_ids:
            del values["id"]
        elif self._key(user["id"]) is None:
            values["id"] = str(uuid.uuid4())
        created = _user(conn.execute(_insert("users", values), list(values.values())).fetchone())
        assert created is not None
        return created

    def get_user(self, user_id: str) -> Record | None:
        key = self._key(user_id)
        if key is None:
            return None
        return _user(self._one("SELECT * FROM users WHERE id = %s", (key,)))

    def get_user_by_email(self, email: str) -> Record | None:
        return _user(self._one("SELECT * FROM users WHERE email = %s", (email,)))

    def get_user_by_account(self, provider: str, provider_account_id: str) -> Record | None:
        row = self._one(
            'SELECT u.* FROM users u JOIN accounts a ON a."userId" = u.id '
            'WHERE a.provider = %s AND a."providerAccountId" = %s',
            (provider, provider_account_id),
        )
        return _user(row)

    def update_user(self, update: Record) -> Record:
        key = self._owner(update["id"])
        values = self._columns("users", update, USER_COLUMNS)
        del values["id"]
        with self._connection() as conn:
            if values:
                query = sql.SQL("UPDATE users SET {} WHERE id = %s RETURNING *").format(
                    sql.SQL(", ").join(sql.SQL("{} = %s").format(sql.Identifier(c)) for c in values)
                )
                row = conn.execute(query, [*values.values(), key]).fetchone()
            else:
                row = conn.execute("SELECT * FROM users WHERE id = %s", (key,)).fetchone()
        user = _user(row)
        if user is None:
            raise LookupError(f"no user with id {update['id']!r}")
        return user

    def delete_user(self, user_id: str) -> Record | None:
        key = self._key(user_id)
        if key is None:
            return None
        with self._transaction() as conn:
            # Explicit deletes too: tables made from older Auth.js docs have no cascades.
            for table in ("sessions", "accounts", "authenticators"):
                query = sql.SQL('DELETE FROM {} WHERE "userId" = %s').format(sql.Identifier(table))
                conn.execute(query, (key,))
            conn.execute('DELETE FROM session_records WHERE "userId" = %s', (str(user_id),))
            return _user(
                conn.execute("DELETE FROM users WHERE id = %s RETURNING *", (key,)).fetchone()
            )

    def link_account(self, account: Record) -> Record:
        with self._connection() as conn:
            return self._insert_account(conn, account)

    def _insert_account(self, conn: Connection, account: Record) -> Record:
        values = self._columns("accounts", account, ACCOUNT_COLUMNS)
        values["userId"] = self._owner(account["user_id"])
        row = conn.execute(_insert("accounts", values), list(values.values())).fetchone()
        linked = _account(row)
        assert linked is not None
        return linked

    def unlink_account(self, provider: str, provider_account_id: str) -> Record | None:
        return _account(self._one(UNLINK_ACCOUNT, (provider, provider_account_id)))

    def create_user_and_account(self, user: Record, account: Record) -> tuple[Record, Record]:
        with self._transaction() as conn:
            created = self._insert_user(conn, user)
            return created, self._insert_account(conn, {**account, "user_id": created["id"]})

    def create_session(self, session: Record) -> Record:
        values = {
            "sessionToken": session["session_token"],
            "userId": self._owner(session["user_id"]),
            "expires": session["expires"],
            "sid": session.get("sid"),
            **device_values(session),
        }
        created = _session(self._one(_insert("sessions", values), list(values.values())))
        assert created is not None
        return created

    def get_session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        if "\0" in session_token:  # PostgreSQL text has none: no stored token has one
            return None
        with self._connection() as conn, conn.cursor(row_factory=tuple_row) as cursor:
            row = cursor.execute(self.session_and_user, (session_token,)).fetchone()
        return None if row is None else self.session_and_user_records(row)

    def session_and_user_records(self, row: tuple[Any, ...]) -> tuple[Record, Record]:
        """A row of :attr:`session_and_user` as the session and the user."""
        token, user_id, expires, sid = row[:4]
        device, user = row[4:8], row[8:]
        session = {
            "session_token": token,
            "user_id": str(user_id),
            "expires": expires.astimezone(UTC),
            **device_row(dict(zip(DEVICE_COLUMNS.values(), device, strict=True))),
        }
        user_record = _user_record(dict(zip(self.user_columns, user, strict=True)))
        return with_sid(session, sid), user_record

    def update_session(self, update: Record) -> Record | None:
        return _session(self._one(*self.session_update(update)))

    def session_update(self, update: Record) -> tuple[Any, list[Any]]:
        """The statement of :meth:`update_session` and its parameters (it returns the row)."""
        token = update["session_token"]
        if update.keys() == {"session_token", "expires", "last_seen_at"}:
            return EXTEND_AND_SEE, [update["expires"], update["last_seen_at"], token]
        if update.keys() == {"session_token", "expires"}:
            return _EXTEND_SESSION, [update["expires"], token]
        values: dict[str, Any] = {}
        if "user_id" in update:
            values["userId"] = self._owner(update["user_id"])
        if "expires" in update:
            values["expires"] = update["expires"]
        if "last_seen_at" in update:
            values["lastSeenAt"] = update["last_seen_at"]
        if not values:
            return 'SELECT * FROM sessions WHERE "sessionToken" = %s', [token]
        query = sql.SQL('UPDATE sessions SET {} WHERE "sessionToken" = %s RETURNING *').format(
            sql.SQL(", ").join(sql.SQL("{} = %s").format(sql.Identifier(c)) for c in values)
        )
        return query, [*values.values(), token]

    @staticmethod
    def session_record(row: dict[str, Any] | None) -> Record | None:
        """A row of ``sessions`` as a session record."""
        return _session(row)

    def delete_session(self, session_token: str) -> Record | None:
        row = self._one(
            'DELETE FROM sessions WHERE "sessionToken" = %s RETURNING *', (session_token,)
        )
        return _session(row)

    def create_verification_token(self, token: Record) -> Record:
        row = self._one(
            "INSERT INTO verification_token (identifier, token, expires) VALUES (%s, %s, %s) "
            "RETURNING *",
            (token["identifier"], token["token"], token["expires"]),
        )
        created = _token(row)
        assert created is not None
        return created

    def use_verification_token(self, identifier: str, token: str) -> Record | None:
        row = self._one(
            "DELETE FROM verification_token WHERE identifier = %s AND token = %s RETURNING *",
            (identifier, token),
        )
        return _token(row)

    def get_account(self, provider: str, provider_account_id: str) -> Record | None:
        row = self._one(
            'SELECT * FROM accounts WHERE provider = %s AND "providerAccountId" = %s',
            (provider, provider_account_id),
        )
        return _account(row)

    def get_authenticator(self, credential_id: str) -> Record | None:
        row = self._one('SELECT * FROM authenticators WHERE "credentialID" = %s', (credential_id,))
        return _authenticator(row)

    def create_authenticator(self, authenticator: Record) -> Record:
        values = {AUTHENTICATOR_COLUMNS[k]: v for k, v in authenticator.items()}
        values["userId"] = self._owner(authenticator["user_id"])
        created = _authenticator(
            self._one(_insert("authenticators", values), list(values.values()))
        )
        assert created is not None
        return created

    def list_authenticators_by_user_id(self, user_id: str) -> list[Record]:
        key = self._key(user_id)
        if key is None:
            return []
        with self._connection() as conn:
            rows = conn.execute(
                'SELECT * FROM authenticators WHERE "userId" = %s', (key,)
            ).fetchall()
        return [a for a in map(_authenticator, rows) if a is not None]

    def update_authenticator_counter(self, credential_id: str, counter: int) -> Record:
        row = self._one(
            'UPDATE authenticators SET counter = %s WHERE "credentialID" = %s RETURNING *',
            (counter, credential_id),
        )
        found = _authenticator(row)
        if found is None:
            raise LookupError(f"no authenticator with credential id {credential_id!r}")
        return found

    def list_sessions_by_user_id(self, user_id: str) -> list[Record]:
        key = self._key(user_id)
        if key is None:
            return []
        with self._connection() as conn:
            rows = conn.execute('SELECT * FROM sessions WHERE "userId" = %s', (key,)).fetchall()
        return [s for s in map(_session, rows) if s is not None]

    def list_accounts_by_user_id(self, user_id: str) -> list[Record]:
        key = self._key(user_id)
        if key is None:
            return []
        with self._connection() as conn:
            rows = conn.execute(
                'SELECT * FROM accounts WHERE "userId" = %s ORDER BY id', (key,)
            ).fetchall()
        return [a for a in map(_account, rows) if a is not None]

    def update_account_tokens(
        self, provider: str, provider_account_id: str, expected: str | None, tokens: Record
    ) -> Record | None:
        assignments = sql.SQL(", ").join(
            sql.SQL("{} = {}").format(sql.Identifier(ACCOUNT_COLUMNS[k]), sql.Placeholder())
            for k in tokens
        )
        query = sql.SQL(
            'UPDATE accounts SET {} WHERE provider = %s AND "providerAccountId" = %s '
            "AND refresh_token IS NOT DISTINCT FROM %s RETURNING *"
        ).format(assignments if tokens else sql.SQL("provider = provider"))
        row = self._one(query, (*tokens.values(), provider, provider_account_id, expected))
        return _account(row)

    def delete_sessions_by_user_id(self, user_id: str) -> int:
        key = self._key(user_id)
        if key is None:
            return 0
        with self._connection() as conn:
            return conn.execute('DELETE FROM sessions WHERE "userId" = %s', (key,)).rowcount

    def delete_sessions_by_sid(self, sid: str) -> int:
        with self._connection() as conn:
            return conn.execute("DELETE FROM sessions WHERE sid = %s", (sid,)).rowcount

    def set_sessions_not_before(
        self, key: str, not_before: datetime, expires: datetime | None
    ) -> None:
        with self._connection() as conn:
            conn.execute(_SET_NOT_BEFORE, (not_before, key, key, not_before, expires))

    def get_sessions_not_before(self, keys: list[str]) -> datetime | None:
        row = self._one(
            'SELECT MAX("notBefore") AS latest FROM session_revocations WHERE key = ANY(%s)',
            (keys,),
        )
        latest = None if row is None else row["latest"]
        return None if latest is None else latest.astimezone(UTC)

    def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        with self._connection() as conn:
            if self._purge.due():
                conn.execute('DELETE FROM rate_limit_counters WHERE "resetAt" <= %s', (now,))
            row = conn.execute(
                _INCREMENT, (key, now + timedelta(seconds=window), now, now)
            ).fetchone()
        assert row is not None
        return int(row["count"]), row["resetAt"].astimezone(UTC)


def _asyncio_loop() -> asyncio.AbstractEventLoop | None:
    """The running asyncio event loop, ``None`` on trio."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class PostgresAdapter(AccountMethods, StoreAdapter):
    """The PostgreSQL adapter (``AuthConfig(adapter=PostgresAdapter(dsn))``).

    ``dsn`` is a libpq connection string or URL; the pool keeps ``min_size`` to
    ``max_size`` connections and waits ``timeout`` seconds for one (and for
    the server at start). On asyncio, session checks and extensions run on a
    second pool, of up to ``max_size`` async connections on the first event loop
    that makes one. ``prepare=False`` sends every statement unprepared: for PgBouncer in
    transaction (or statement) pooling mode (see the module's docstring).
    """

    def __init__(
        self,
        dsn: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 10.0,
        prepare: bool = True,
    ) -> None:
        self.store = PostgresStore(
            dsn, min_size=min_size, max_size=max_size, timeout=timeout, prepare=prepare
        )
        super().__init__(self.store, threaded=True)
        self._sessions: AsyncioSessions | None = None

    def _asyncio_sessions(self) -> AsyncioSessions | None:
        """The session calls of the running asyncio loop; ``None`` on trio, before the
        store is open (the first call opens it), or on a loop other than the first one."""
        loop = _asyncio_loop()
        if not self.is_open or loop is None:
            return None
        if self._sessions is None:
            self._sessions = AsyncioSessions(self.store, loop)
        return self._sessions if self._sessions.loop is loop else None

    async def get_session_and_user(self, session_token: str) -> SessionAndUser | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_session_and_user` (on asyncio, one
        query on an async connection: no worker thread)."""
        sessions = self._asyncio_sessions()
        if sessions is None:
            return await super().get_session_and_user(session_token)
        return session_and_user(await sessions.session_and_user(session_token))

    async def update_session(self, session: SessionUpdate) -> AdapterSession | None:
        """See :meth:`sansio_auth.adapters.Adapter.update_session` (on asyncio, one
        statement on an async connection: no worker thread)."""
        sessions = self._asyncio_sessions()
        if sessions is None:
            return await super().update_session(session)
        updated = await sessions.update_session(normal_session_update(session))
        return cast(AdapterSession | None, updated)

    async def aclose(self) -> None:
        """Release connections (those of the asyncio session calls too)."""
        sessions, self._sessions = self._sessions, None
        if sessions is not None and sessions.loop is _asyncio_loop():
            await sessions.close()
        await super().aclose()
