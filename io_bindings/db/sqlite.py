"""The embedded adapter: one SQLite file, stdlib :mod:`sqlite3` in worker threads.

>>> from io_bindings.db.sqlite import SQLiteAdapter
>>> config = AuthConfig(adapter=SQLiteAdapter("auth.db"), providers=[...])

Works on asyncio and trio (the blocking calls run in anyio worker threads; the
session check, a point read that WAL mode seldom blocks, is read at once on the
calling thread when the database is not busy, and in a worker thread when it is).
The file is put in WAL mode; the schema is created, or migrated forward, on
first use (the version is kept in the ``sansio_auth_schema`` table). Each
adapter method is one transaction; writes take the write lock up front (a
single statement does so by itself, several run in ``BEGIN IMMEDIATE``) so
concurrent requests serialise instead of failing.
Custom keys of users and accounts are kept as JSON in an ``extra`` column.
"""

from __future__ import annotations

import contextlib
import queue
import sqlite3
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from os import PathLike
from typing import Any

import msgspec

from sansio_auth.adapters import AdapterConflict, SessionAndUser

from ._accounts import AccountMethods
from ._base import (
    ACCOUNT_FIELDS,
    AUTHENTICATOR_FIELDS,
    PURGE_INTERVAL,
    USER_FIELDS,
    Every,
    Record,
    StoreAdapter,
    format_time,
    parse_time,
    session_and_user,
)
from ._sqlite_accounts import (
    PASSWORDS_MIGRATION,
    SESSIONS_MIGRATION,
    SQLiteAccounts,
    device_params,
    session_row,
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # version 1
        """CREATE TABLE users (
            id TEXT PRIMARY KEY,
            email TEXT UNIQUE,
            email_verified TEXT,
            name TEXT,
            image TEXT,
            extra TEXT
        )""",
        """CREATE TABLE accounts (
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            type TEXT NOT NULL,
            provider TEXT NOT NULL,
            provider_account_id TEXT NOT NULL,
            access_token TEXT,
            token_type TEXT,
            id_token TEXT,
            refresh_token TEXT,
            scope TEXT,
            expires_at INTEGER,
            session_state TEXT,
            extra TEXT,
            PRIMARY KEY (provider, provider_account_id)
        )""",
        "CREATE INDEX accounts_user_id ON accounts (user_id)",
        """CREATE TABLE sessions (
            session_token TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            expires TEXT NOT NULL
        )""",
        "CREATE INDEX sessions_user_id ON sessions (user_id)",
        """CREATE TABLE verification_tokens (
            identifier TEXT NOT NULL,
            token TEXT NOT NULL,
            expires TEXT NOT NULL,
            PRIMARY KEY (identifier, token)
        )""",
        """CREATE TABLE authenticators (
            credential_id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            provider_account_id TEXT NOT NULL,
            credential_public_key TEXT NOT NULL,
            counter INTEGER NOT NULL,
            credential_device_type TEXT NOT NULL,
            credential_backed_up INTEGER NOT NULL,
            transports TEXT
        )""",
        "CREATE INDEX authenticators_user_id ON authenticators (user_id)",
    ),
    (  # version 2: revocable sessions
        """CREATE TABLE session_revocations (
            key TEXT PRIMARY KEY,
            not_before TEXT NOT NULL
        )""",
    ),
    PASSWORDS_MIGRATION,  # version 3: password hashes and second factors
    (  # version 4: sessions keep their provider session; marks expire; rate-limit counters
        "ALTER TABLE sessions ADD COLUMN sid TEXT",
        "CREATE INDEX sessions_sid ON sessions (sid)",
        "ALTER TABLE session_revocations ADD COLUMN expires TEXT",
        "CREATE INDEX session_revocations_expires ON session_revocations (expires)",
        """CREATE TABLE rate_limit_counters (
            key TEXT PRIMARY KEY,
            count INTEGER NOT NULL,
            reset_at TEXT NOT NULL
        )""",
        "CREATE INDEX rate_limit_counters_reset_at ON rate_limit_counters (reset_at)",
    ),
    SESSIONS_MIGRATION,  # version 5: sessions with their device; JWT session records
)
"""Schema migrations: entry ``n`` takes the schema from version ``n`` to ``n + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version this adapter migrates a database to (the number of migrations)."""
_SELECT_USER = "SELECT id, email, email_verified, name, image, extra FROM users "
_SELECT_ACCOUNT = (
    "SELECT user_id, type, provider, provider_account_id, access_token, token_type, id_token, "
    "refresh_token, scope, expires_at, session_state, extra FROM accounts "
)
_SESSION_AND_USER = (
    "SELECT s.session_token, s.user_id, s.expires, s.sid, s.created_at, s.last_seen_at, "
    "s.user_agent, s.ip_address, u.id, u.email, u.email_verified, u.name, u.image, u.extra "
    "FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.session_token = ?"
)
_SELECT_AUTHENTICATOR = (
    "SELECT credential_id, user_id, provider_account_id, credential_public_key, counter, "
    "credential_device_type, credential_backed_up, transports FROM authenticators "
)


def _session_and_user(row: sqlite3.Row | None) -> tuple[Record, Record] | None:
    session, user = _session(row), _user(row)
    return None if session is None or user is None else (session, user)


def _one(conn: sqlite3.Connection, sql: str, params: Any = ()) -> sqlite3.Row | None:
    """The first row (the statement is run to completion, so no transaction stays open)."""
    rows = conn.execute(sql, params).fetchall()
    return rows[0] if rows else None


def _with_extra(row: sqlite3.Row, fields: tuple[str, ...]) -> Record:
    record: Record = msgspec.json.decode(row["extra"]) if row["extra"] else {}
    record.update((field, row[field]) for field in fields)
    return record


def _extra(record: Record, fields: tuple[str, ...]) -> bytes | None:
    extra = {k: v for k, v in record.items() if k not in fields}
    return msgspec.json.encode(extra) if extra else None


def _user(row: sqlite3.Row | None) -> Record | None:
    if row is None:
        return None
    user = _with_extra(row, USER_FIELDS)
    if user["email_verified"] is not None:
        user["email_verified"] = parse_time(user["email_verified"])
    return user


def _account(row: sqlite3.Row | None) -> Record | None:
    return None if row is None else _with_extra(row, ACCOUNT_FIELDS)


def _session(row: sqlite3.Row | None) -> Record | None:
    return None if row is None else session_row(row)


def _authenticator(row: sqlite3.Row | None) -> Record | None:
    if row is None:
        return None
    record = {field: row[field] for field in AUTHENTICATOR_FIELDS}
    record["credential_backed_up"] = bool(record["credential_backed_up"])
    return record


def _user_params(user: Record) -> tuple[Any, ...]:
    verified = user["email_verified"]
    return (
        user["id"],
        user["email"],
        None if verified is None else format_time(verified),
        user["name"],
        user["image"],
        _extra(user, USER_FIELDS),
    )


@contextlib.contextmanager
def _integrity() -> Iterator[None]:
    """Constraint failures as the adapter contract names them."""
    try:
        yield
    except sqlite3.IntegrityError as err:
        if "FOREIGN KEY" in str(err):
            raise LookupError("no such user") from err
        if "UNIQUE" in str(err):
            raise AdapterConflict(str(err)) from err
        raise


class SQLiteStore(SQLiteAccounts):
    """The synchronous store behind :class:`SQLiteAdapter` (a small pool of connections)."""

    def __init__(self, path: str | PathLike[str], *, pool_size: int, timeout: float) -> None:
        self.path = str(path)
        self.pool_size = 1 if self.path == ":memory:" else pool_size
        self.timeout = timeout
        self._idle: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None  # for reads at once, one at a time
        self._reader_lock = threading.Lock()
        self._purge = Every(PURGE_INTERVAL)

    def _connect(self, timeout: float | None = None) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            timeout=self.timeout if timeout is None else timeout,
            isolation_level=None,
            check_same_thread=False,
        )
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            with self._lock:
                grow = len(self._all) < self.pool_size
                if grow:
                    conn = self._connect()
                    self._all.append(conn)
            if not grow:
                try:
                    conn = self._idle.get(timeout=self.timeout)
                except queue.Empty:
                    raise TimeoutError("no SQLite connection free in time") from None
        try:
            yield conn
        finally:
            self._idle.put(conn)

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, holding the database's write lock from the start."""
        with self._connection() as conn, _integrity():
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def open(self) -> None:
        """Switch to WAL and bring the schema to :data:`SCHEMA_VERSION`."""
        with self._connection() as conn:
            conn.execute("PRAGMA journal_mode = WAL")
        with self._write() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS sansio_auth_schema (version INTEGER NOT NULL)")
            row = _one(conn, "SELECT version FROM sansio_auth_schema")
            version = 0 if row is None else row["version"]
            if version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.path} has auth schema version {version}; this version of "
                    f"sansio-auth knows up to {SCHEMA_VERSION}"
                )
            for statements in MIGRATIONS[version:]:
                for statement in statements:
                    conn.execute(statement)
            if row is None:
                conn.execute("INSERT INTO sansio_auth_schema VALUES (?)", (SCHEMA_VERSION,))
            else:
                conn.execute("UPDATE sansio_auth_schema SET version = ?", (SCHEMA_VERSION,))

    def close(self) -> None:
        """Close every connection of the pool."""
        with self._lock, self._reader_lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    def _query(self, sql: str, *params: Any) -> sqlite3.Row | None:
        with self._connection() as conn:
            return _one(conn, sql, params)

    def _statement(self, sql: str, *params: Any) -> sqlite3.Row | None:
        """One write statement as its own transaction (a write statement takes the write
        lock when it starts, waiting as ``BEGIN IMMEDIATE`` would, with no extra round)."""
        with self._connection() as conn, _integrity():
            return _one(conn, sql, params)

    def create_user(self, user: Record) -> Record:
        with self._write() as conn:
            return self._insert_user(conn, user)

    def _insert_user(self, conn: sqlite3.Connection, user: Record) -> Record:
        conn.execute(
            "INSERT INTO users (id, email, email_verified, name, image, extra) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            _user_params(user),
        )
        return user

    def get_user(self, user_id: str) -> Record | None:
        return _user(self._query(_SELECT_USER + "WHERE id = ?", user_id))

    def get_user_by_email(self, email: str) -> Record | None:
        return _user(self._query(_SELECT_USER + "WHERE email = ?", email))

    def get_user_by_account(self, provider: str, provider_account_id: str) -> Record | None:
        row = self._query(
            "SELECT u.id, u.email, u.email_verified, u.name, u.image, u.extra "
            "FROM users u JOIN accounts a ON a.user_id = u.id "
            "WHERE a.provider = ? AND a.provider_account_id = ?",
            provider,
            provider_account_id,
        )
        return _user(row)

    def update_user(self, update: Record) -> Record:
        with self._write() as conn:
            row = _one(conn, _SELECT_USER + "WHERE id = ?", (update["id"],))
            user = _user(row)
            if user is None:
                raise LookupError(f"no user with id {update['id']!r}")
            user.update(update)
            params = _user_params(user)
            conn.execute(
                "UPDATE users SET email = ?, email_verified = ?, name = ?, image = ?, extra = ? "
                "WHERE id = ?",
                (*params[1:], params[0]),
            )
            return user

    def delete_user(self, user_id: str) -> Record | None:
        with self._write() as conn:
            sql = (
                "DELETE FROM users WHERE id = ? "
                "RETURNING id, email, email_verified, name, image, extra"
            )
            conn.execute("DELETE FROM session_records WHERE user_id = ?", (user_id,))
            return _user(_one(conn, sql, (user_id,)))

    def link_account(self, account: Record) -> Record:
        with self._write() as conn:
            return self._insert_account(conn, account)

    def _insert_account(self, conn: sqlite3.Connection, account: Record) -> Record:
        params = [account[field] for field in ACCOUNT_FIELDS]
        params.append(_extra(account, ACCOUNT_FIELDS))
        conn.execute(
            "INSERT INTO accounts (user_id, type, provider, provider_account_id, access_token, "
            "token_type, id_token, refresh_token, scope, expires_at, session_state, extra) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            params,
        )
        return account

    def unlink_account(self, provider: str, provider_account_id: str) -> Record | None:
        with self._write() as conn:
            row = _one(
                conn,
                "DELETE FROM accounts WHERE provider = ? AND provider_account_id = ? "
                "RETURNING user_id, type, provider, provider_account_id, access_token, "
                "token_type, id_token, refresh_token, scope, expires_at, session_state, extra",
                (provider, provider_account_id),
            )
            if row is not None and row["type"] == "webauthn":  # its passkey goes with it
                conn.execute(
                    "DELETE FROM authenticators WHERE user_id = ? AND provider_account_id = ?",
                    (row["user_id"], provider_account_id),
                )
            return _account(row)

    def create_user_and_account(self, user: Record, account: Record) -> tuple[Record, Record]:
        with self._write() as conn:
            return self._insert_user(conn, user), self._insert_account(conn, account)

    def create_session(self, session: Record) -> Record:
        self._statement(
            "INSERT INTO sessions (session_token, user_id, expires, sid, created_at, "
            "last_seen_at, user_agent, ip_address) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            session["session_token"],
            session["user_id"],
            format_time(session["expires"]),
            session.get("sid"),
            *device_params(session),
        )
        return session

    def get_session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        return _session_and_user(self._query(_SESSION_AND_USER, session_token))

    def get_session_and_user_at_once(self, session_token: str) -> tuple[Record, Record] | None:
        """:meth:`get_session_and_user` on a connection of its own, never waiting: raises
        :class:`sqlite3.OperationalError` if the database is busy, if another thread is
        using that connection, or for an in-memory database (it has one connection)."""
        if self.path == ":memory:" or not self._reader_lock.acquire(blocking=False):
            raise sqlite3.OperationalError("no connection free at once")
        try:
            if self._reader is None:
                self._reader = self._connect(timeout=0)
            return _session_and_user(_one(self._reader, _SESSION_AND_USER, (session_token,)))
        finally:
            self._reader_lock.release()

    def update_session(self, update: Record) -> Record | None:
        expires, seen = update.get("expires"), update.get("last_seen_at")
        row = self._statement(
            "UPDATE sessions SET user_id = coalesce(?, user_id), expires = coalesce(?, expires), "
            "last_seen_at = coalesce(?, last_seen_at) WHERE session_token = ? RETURNING "
            "session_token, user_id, expires, sid, created_at, last_seen_at, user_agent, "
            "ip_address",
            update.get("user_id"),
            None if expires is None else format_time(expires),
            None if seen is None else format_time(seen),
            update["session_token"],
        )
        return _session(row)

    def delete_session(self, session_token: str) -> Record | None:
        row = self._statement(
            "DELETE FROM sessions WHERE session_token = ? RETURNING session_token, user_id, "
            "expires, sid, created_at, last_seen_at, user_agent, ip_address",
            session_token,
        )
        return _session(row)

    def create_verification_token(self, token: Record) -> Record:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO verification_tokens (identifier, token, expires) VALUES (?, ?, ?)",
                (token["identifier"], token["token"], format_time(token["expires"])),
            )
        return token

    def use_verification_token(self, identifier: str, token: str) -> Record | None:
        with self._write() as conn:
            row = _one(
                conn,
                "DELETE FROM verification_tokens WHERE identifier = ? AND token = ? "
                "RETURNING identifier, token, expires",
                (identifier, token),
            )
        if row is None:
            return None
        return {"identifier": row[0], "token": row[1], "expires": parse_time(row[2])}

    def get_account(self, provider: str, provider_account_id: str) -> Record | None:
        row = self._query(
            _SELECT_ACCOUNT + "WHERE provider = ? AND provider_account_id = ?",
            provider,
            provider_account_id,
        )
        return _account(row)

    def get_authenticator(self, credential_id: str) -> Record | None:
        row = self._query(
            _SELECT_AUTHENTICATOR + "WHERE credential_id = ?",
            credential_id,
        )
        return _authenticator(row)

    def create_authenticator(self, authenticator: Record) -> Record:
        params = [authenticator[field] for field in AUTHENTICATOR_FIELDS]
        with self._write() as conn:
            conn.execute(
                "INSERT INTO authenticators (credential_id, user_id, provider_account_id, "
                "credential_public_key, counter, credential_device_type, credential_backed_up, "
                "transports) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                params,
            )
        return authenticator

    def list_authenticators_by_user_id(self, user_id: str) -> list[Record]:
        with self._connection() as conn:
            rows = conn.execute(
                _SELECT_AUTHENTICATOR + "WHERE user_id = ? ORDER BY rowid",
                (user_id,),
            ).fetchall()
        return [a for a in map(_authenticator, rows) if a is not None]

    def update_authenticator_counter(self, credential_id: str, counter: int) -> Record:
        with self._write() as conn:
            row = _one(
                conn,
                "UPDATE authenticators SET counter = ? WHERE credential_id = ? "
                "RETURNING credential_id, user_id, provider_account_id, credential_public_key, "
                "counter, credential_device_type, credential_backed_up, transports",
                (counter, credential_id),
            )
        found = _authenticator(row)
        if found is None:
            raise LookupError(f"no authenticator with credential id {credential_id!r}")
        return found

    def list_accounts_by_user_id(self, user_id: str) -> list[Record]:
        with self._connection() as conn:
            rows = conn.execute(
                _SELECT_ACCOUNT + "WHERE user_id = ? ORDER BY rowid", (user_id,)
            ).fetchall()
        return [a for a in map(_account, rows) if a is not None]

    def update_account_tokens(
        self, provider: str, provider_account_id: str, expected: str | None, tokens: Record
    ) -> Record | None:
        if not tokens:
            found = self.get_account(provider, provider_account_id)
            return found if found and found.get("refresh_token") == expected else None
        assignments = ", ".join(f"{field} = ?" for field in tokens)  # names checked by _base
        with self._write() as conn:
            changed = conn.execute(
                f"UPDATE accounts SET {assignments} "  # noqa: S608
                "WHERE provider = ? AND provider_account_id = ? AND refresh_token IS ?",
                (*tokens.values(), provider, provider_account_id, expected),
            ).rowcount
            if changed != 1:
                return None
            row = _one(
                conn,
                _SELECT_ACCOUNT + "WHERE provider = ? AND provider_account_id = ?",
                (provider, provider_account_id),
            )
            return _account(row)

    def delete_sessions_by_user_id(self, user_id: str) -> int:
        with self._write() as conn:
            return conn.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,)).rowcount

    def delete_sessions_by_sid(self, sid: str) -> int:
        with self._write() as conn:
            return conn.execute("DELETE FROM sessions WHERE sid = ?", (sid,)).rowcount

    def set_sessions_not_before(
        self, key: str, not_before: datetime, expires: datetime | None
    ) -> None:
        mark, until = format_time(not_before), None if expires is None else format_time(expires)
        with self._write() as conn:
            conn.execute("DELETE FROM session_revocations WHERE expires <= ?", (mark,))
            conn.execute(
                "INSERT INTO session_revocations (key, not_before, expires) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET "
                "not_before = max(not_before, excluded.not_before), "
                "expires = CASE WHEN expires IS NULL OR excluded.expires IS NULL THEN NULL "
                "ELSE max(expires, excluded.expires) END",
                (key, mark, until),
            )

    def get_sessions_not_before(self, keys: list[str]) -> datetime | None:
        marks = ", ".join("?" for _ in keys)
        row = self._query(
            f"SELECT MAX(not_before) AS latest FROM session_revocations "  # noqa: S608
            f"WHERE key IN ({marks})",
            *keys,
        )
        return None if row is None or row["latest"] is None else parse_time(row["latest"])

    def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        at, reset_at = format_time(now), format_time(now + timedelta(seconds=window))
        with self._write() as conn:
            if self._purge.due():
                conn.execute("DELETE FROM rate_limit_counters WHERE reset_at <= ?", (at,))
            row = _one(
                conn,
                "INSERT INTO rate_limit_counters (key, count, reset_at) VALUES (?, 1, ?) "
                "ON CONFLICT (key) DO UPDATE SET "
                "count = CASE WHEN reset_at <= ? THEN 1 ELSE count + 1 END, "
                "reset_at = CASE WHEN reset_at <= ? THEN excluded.reset_at ELSE reset_at END "
                "RETURNING count, reset_at",
                (key, reset_at, at, at),
            )
        assert row is not None
        return int(row["count"]), parse_time(row["reset_at"])


class SQLiteAdapter(AccountMethods, StoreAdapter):
    """The SQLite adapter (``AuthConfig(adapter=SQLiteAdapter("auth.db"))``).

    ``pool_size`` connections at most (one for ``":memory:"``, which then lives
    as long as the adapter); ``timeout`` seconds to wait for a lock or a connection.
    """

    def __init__(
        self, path: str | PathLike[str], *, pool_size: int = 4, timeout: float = 10.0
    ) -> None:
        self.store = SQLiteStore(path, pool_size=pool_size, timeout=timeout)
        super().__init__(self.store, threaded=True)

    async def get_session_and_user(self, session_token: str) -> SessionAndUser | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_session_and_user`: read at once on
        the event loop's thread (a point read in WAL mode takes microseconds, less than
        handing it to a worker thread), in a worker thread when the database is busy."""
        if self.is_open:
            try:
                return session_and_user(self.store.get_session_and_user_at_once(session_token))
            except sqlite3.OperationalError:
                pass  # busy (or in memory): wait for it in a worker thread
        return await super().get_session_and_user(session_token)
