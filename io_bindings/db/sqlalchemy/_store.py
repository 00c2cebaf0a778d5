"""The synchronous store of the SQLAlchemy adapter: SQLAlchemy Core on the models' tables.

Each method is one transaction on a connection of the engine's pool. Statements are
the portable subset (no ``RETURNING``, which MySQL lacks): a write that must report
what it changed reads the row in the same transaction. Constraint failures are named
as the adapter contract names them; a deadlock (two racing sign-ups on MariaDB) is
retried.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Table,
    bindparam,
    delete,
    event,
    exc,
    func,
    insert,
    inspect,
    orm,
    select,
    text,
    update,
)
from sqlalchemy.schema import CreateColumn

from sansio_auth.adapters import AdapterConflict

from .._authjs_tables import ADDED_COLUMNS, MIGRATION_LOCK
from .._base import (
    AUTHENTICATOR_FIELDS,
    PURGE_INTERVAL,
    TOKEN_FIELDS,
    USER_FIELDS,
    Every,
    Record,
)
from .._cancel import stoppable
from .._errors import constraint_error, is_transient
from ._accounts import SESSION_KEYS, SQLAlchemyAccounts, device_record
from ._models import AuthModels, as_utc

ACCOUNT_KEYS = ("user_id", "type", "provider", "provider_account_id", *TOKEN_FIELDS)
_ATTEMPTS = 5
_CANCEL_TIMEOUT = 5.0  # seconds a cancel request of a call cut by a deadline may take
MIGRATION = "io_bindings/db/sqlalchemy/alembic_0001_auth_tables.py"
"""The Alembic revision that makes the tables (what ``create_all`` makes)."""
logger = logging.getLogger("sansio_auth")


def _columns(model: Any) -> dict[str, Column[Any]]:
    """A model's columns by attribute name."""
    return dict(model.__mapper__.columns.items())


def _conflict_or_missing(err: exc.IntegrityError) -> Exception:
    """A constraint failure as the contract names it."""
    return constraint_error(err.orig) or err


def _stoppable(conn: Connection) -> contextlib.AbstractContextManager[None]:
    """:func:`.stoppable` with the driver's cancel of the query in the server, where it has
    one (psycopg; other drivers' calls cut by a deadline run to their end)."""
    cancel = getattr(conn.connection.driver_connection, "cancel_safe", None)
    if cancel is None:
        return contextlib.nullcontext()
    return stoppable(partial(cancel, timeout=_CANCEL_TIMEOUT))


def _sqlite_transactions(engine: Engine) -> None:
    """SQLite as the other stores use it: foreign keys on, WAL, and a write transaction
    that takes the write lock when it begins (``BEGIN IMMEDIATE``), so concurrent writers
    wait for each other instead of failing; a read begins a plain snapshot."""

    @event.listens_for(engine, "connect")
    def connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we say BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def begin(conn: Connection) -> None:
        write = conn.get_execution_options().get("sansio_auth_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


class SQLAlchemyStore(SQLAlchemyAccounts):
    """The synchronous store behind :class:`~io_bindings.db.sqlalchemy.SQLAlchemyAdapter`."""

    def __init__(self, engine: Engine, models: AuthModels, *, create_tables: bool) -> None:
        self.engine, self.models, self.create_tables = engine, models, create_tables
        if engine.dialect.name == "sqlite":
            _sqlite_transactions(engine)
        fields = models.user_fields
        user_columns = models.user_columns
        self.user = {
            key: user_columns[fields[key]] for key in USER_FIELDS if fields[key] in user_columns
        }
        self.user |= {k: c for k, c in user_columns.items() if k not in fields.values()}
        self.account = _columns(models.Account)
        self.session = _columns(models.Session)
        self.token = _columns(models.VerificationToken)
        self.authenticator = _columns(models.Authenticator)
        self.revocation = _columns(models.SessionRevocation)
        self.counter = _columns(models.RateLimitCounter)
        self._purge = Every(PURGE_INTERVAL)
        self.users: Table = models.users
        self._user_columns = list(self.user.items())
        session_columns = [self.session[key] for key in SESSION_KEYS]
        self.session_check = (  # the session check: one JOIN, the token bound as "token"
            select(*session_columns, *self.user.values())
            .join_from(
                models.Session.__table__, self.users, self.session["user_id"] == self.user["id"]
            )
            .where(self.session["session_token"] == bindparam("token"))
        )
        self._users = select(*self.user.values())

    def open(self) -> None:
        """Check the database answers; migrate a database Auth.js made forward; create the
        tables when asked to."""
        if self.create_tables:
            self.models.metadata.create_all(self.engine, tables=self.models.auth_tables)
        with self._read() as conn:
            conn.execute(select(1))
            missing = self._missing_columns(conn)
        if missing:
            self._add_to_authjs_tables()
        with self._read() as conn:
            self._report_missing_tables(conn)
            self._check_ids_are_not_reused(conn)

    def _missing_columns(self, conn: Connection) -> list[Column[Any]]:
        """The columns ours adds to Auth.js's tables that the database's tables lack (a table
        that is not there lacks none: it is made whole, or reported missing)."""
        inspector = inspect(conn)
        tables = {table.name: table for table in self.models.auth_tables}
        missing = []
        for role, names in ADDED_COLUMNS.items():
            table = tables[self.models.tables[role]]
            if not inspector.has_table(table.name, schema=table.schema):
                continue
            present = {c["name"] for c in inspector.get_columns(table.name, schema=table.schema)}
            missing += [table.c[name] for name in names if name not in present]
        return missing

    def _add_to_authjs_tables(self) -> None:
        """Migrate a database Auth.js made forward, as the PostgreSQL store does: add the
        columns ours adds to its tables (nullable; with their indexes), then make the tables
        of ours it lacks. One transaction where the database has transactional DDL."""
        with self._write() as conn:
            if conn.dialect.name == "postgresql":  # one migrator at a time, of any store
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
            missing = self._missing_columns(conn)  # again: another may have added them
            preparer = conn.dialect.identifier_preparer
            for column in missing:
                spec = CreateColumn(column).compile(dialect=conn.dialect)
                conn.execute(text(f"ALTER TABLE {preparer.format_table(column.table)} ADD {spec}"))
            added = {(column.table.name, column.name) for column in missing}
            for table in {column.table for column in missing}:
                for index in table.indexes:
                    if any((table.name, column.name) in added for column in index.columns):
                        index.create(conn)
            self.models.metadata.create_all(conn, tables=self.models.auth_tables)
        if missing:
            logger.info(
                "[auth] SQLAlchemyAdapter: added %s to the tables of the database %s",
                ", ".join(f"{column.table.name}.{column.name}" for column in missing),
                self.engine.url.render_as_string(hide_password=True),
            )

    def _report_missing_tables(self, conn: Connection) -> None:
        """Log once, when the store opens, which of its tables the database lacks and how to
        make them: without them every call fails with the driver's "no such table"."""
        tables = [self.users, *(t for t in self.models.auth_tables if t is not self.users)]
        inspector = inspect(conn)
        present = {
            schema: set(inspector.get_table_names(schema=schema))
            for schema in {table.schema for table in tables}
        }
        missing = [t.fullname for t in tables if t.name not in present[t.schema]]
        if missing:
            logger.error(
                "[auth][error] SQLAlchemyAdapter: the database %s has no table %s: every call "
                "that needs one fails. Create them: `adapter.models.metadata.create_all("
                "adapter.engine)` at start-up, or `SQLAlchemyAdapter(..., create_tables=True)` "
                "(makes those missing when the adapter opens), or the Alembic revision %s "
                "(copy it into your migrations; `alembic upgrade head`). See "
                "docs/databases/sqlalchemy.md.",
                conn.engine.url.render_as_string(hide_password=True),
                ", ".join(missing),
                MIGRATION,
            )

    def _check_ids_are_not_reused(self, conn: Connection) -> None:
        """Refuse a SQLite user table whose integer id lacks ``AUTOINCREMENT``: SQLite would
        give a deleted user's id to the next user, and that user would inherit what still
        names the deleted one (a JWT session's ``sub``, a revocation mark)."""
        if conn.dialect.name != "sqlite" or not self.models.integer_ids:
            return
        found = text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :name")
        schema = conn.execute(found, {"name": self.users.name}).scalar()
        if schema is not None and "AUTOINCREMENT" not in schema.upper():
            raise ValueError(
                f"the SQLite table {self.users.name!r} would give a deleted user's id to the "
                "next new user: declare its integer id AUTOINCREMENT (__table_args__ = "
                '{"sqlite_autoincrement": True} on the user model) and make the table again'
            )

    def close(self) -> None:
        """Close the pool's connections (the engine stays usable)."""
        self.engine.dispose()

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn, _stoppable(conn):
            yield conn

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        """One write transaction, committed on success; constraint failures named."""
        try:
            with self.engine.connect() as conn, _stoppable(conn):
                conn = conn.execution_options(sansio_auth_write=True)
                with conn.begin():
                    yield conn
        except exc.IntegrityError as err:
            raise _conflict_or_missing(err) from err

    def _retried(self, work: Any, *args: Any) -> Any:
        """``work(conn, *args)`` in a write transaction, again after a deadlock."""
        for attempt in range(_ATTEMPTS):
            try:
                with self._write() as conn:
                    return work(conn, *args)
            except exc.DBAPIError as err:
                if not is_transient(err.orig) or attempt == _ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    # records

    def _user(self, row: Sequence[Any] | None, offset: int = 0) -> Record | None:
        if row is None:
            return None
        record = {key: row[offset + i] for i, (key, _) in enumerate(self._user_columns)}
        record["id"] = str(record["id"])
        for key, value in record.items():
            if isinstance(value, datetime):
                record[key] = as_utc(value)
        return record

    def _record(self, row: Sequence[Any] | None, keys: tuple[str, ...]) -> Record | None:
        if row is None:
            return None
        record = dict(zip(keys, row, strict=True))
        if "user_id" in record:
            record["user_id"] = str(record["user_id"])
        for key, value in record.items():
            if isinstance(value, datetime):
                record[key] = as_utc(value)
        return record

    def _account(self, row: Sequence[Any] | None) -> Record | None:
        return self._record(row, ACCOUNT_KEYS)

    def _session(self, row: Sequence[Any] | None) -> Record | None:
        record = self._record(row, SESSION_KEYS)
        return None if record is None else device_record(record)

    def _authenticator(self, row: Sequence[Any] | None) -> Record | None:
        record = self._record(row, AUTHENTICATOR_FIELDS)
        if record is not None:
            record["credential_backed_up"] = bool(record["credential_backed_up"])
        return record

    def _select(self, columns: dict[str, Column[Any]], keys: tuple[str, ...]) -> Any:
        return select(*(columns[key] for key in keys))

    def _key(self, user_id: str) -> Any:
        return self.models.user_key(user_id)

    def _owner(self, user_id: str) -> Any:
        key = self._key(user_id)
        if key is None:
            raise LookupError(f"no user with id {user_id!r}")
        return key

    def _user_values(self, record: Record) -> dict[str, Any]:
        return {self.user[k].key: v for k, v in record.items() if k in self.user and k != "id"}

    # users

    def create_user(self, user: Record) -> Record:
        return self._retried(self._insert_user, user)  # type: ignore[no-any-return]

    def _insert_user(self, conn: Connection, user: Record) -> Record:
        values = self._user_values(user)
        new_id = self.models.new_user_id(user["id"])
        if new_id is not None:
            values[self.user["id"].key] = new_id
        result = conn.execute(insert(self.users).values(values))
        key = new_id if new_id is not None else result.inserted_primary_key[0]  # type: ignore[index]
        created = self._user(conn.execute(self._users.where(self.user["id"] == key)).first())
        assert created is not None
        return created

    def get_user(self, user_id: str) -> Record | None:
        key = self._key(user_id)
        if key is None:
            return None
        with self._read() as conn:
            return self._user(conn.execute(self._users.where(self.user["id"] == key)).first())

    def get_user_object(self, user_id: str) -> Any:
        """The user ``user_id`` as an instance of the models' ``User`` (your model, when you
        gave one), loaded in a session of its own and detached from it, or ``None``."""
        key = self._key(user_id)
        if key is None:
            return None
        with orm.Session(self.engine, expire_on_commit=False) as db:
            return db.get(self.models.User, key)

    def get_user_by_email(self, email: str) -> Record | None:
        with self._read() as conn:
            return self._user(conn.execute(self._users.where(self.user["email"] == email)).first())

    def get_user_by_account(self, provider: str, provider_account_id: str) -> Record | None:
        query = self._users.join_from(
            self.users, self.models.Account.__table__, self.account["user_id"] == self.user["id"]
        ).where(
            self.account["provider"] == provider,
            self.account["provider_account_id"] == provider_account_id,
        )
        with self._read() as conn:
            return self._user(conn.execute(query).first())

    def update_user(self, update: Record) -> Record:
        key = self._owner(update["id"])

        def work(conn: Connection) -> Record:
            values = self._user_values(update)
            where = self.user["id"] == key
            if values:
                conn.execute(self.users.update().where(where).values(values))
            user = self._user(conn.execute(self._users.where(where)).first())
            if user is None:
                raise LookupError(f"no user with id {update['id']!r}")
            return user

        return self._retried(work)  # type: ignore[no-any-return]

    def delete_user(self, user_id: str) -> Record | None:
        key = self._key(user_id)
        if key is None:
            return None

        def work(conn: Connection) -> Record | None:
            where = self.user["id"] == key
            user = self._user(conn.execute(self._users.where(where)).first())
            if user is not None:
                # Explicit deletes too: tables made without cascades (older Auth.js schemas).
                for model, columns in (
                    (self.models.Session, self.session),
                    (self.models.Account, self.account),
                    (self.models.Authenticator, self.authenticator),
                    (self.models.UserPassword, self._passwords),
                    (self.models.UserTwoFactor, self._two_factors),
                ):
                    conn.execute(delete(model.__table__).where(columns["user_id"] == key))
                self.forget_records(conn, user_id)
                conn.execute(delete(self.users).where(where))
            return user

        return self._retried(work)  # type: ignore[no-any-return]

    # accounts

    def link_account(self, account: Record) -> Record:
        return self._retried(self._insert_account, account)  # type: ignore[no-any-return]

    def _insert_account(self, conn: Connection, account: Record) -> Record:
        values = {self.account[k].key: account[k] for k in ACCOUNT_KEYS}
        values[self.account["user_id"].key] = self._owner(account["user_id"])
        conn.execute(insert(self.models.Account.__table__).values(values))
        return {k: account[k] for k in ACCOUNT_KEYS}

    def unlink_account(self, provider: str, provider_account_id: str) -> Record | None:
        def work(conn: Connection) -> Record | None:
            where = (
                self.account["provider"] == provider,
                self.account["provider_account_id"] == provider_account_id,
            )
            found = self._account(
                conn.execute(self._select(self.account, ACCOUNT_KEYS).where(*where)).first()
            )
            if found is not None:
                conn.execute(delete(self.models.Account.__table__).where(*where))
            if found is not None and found["type"] == "webauthn":  # its passkey goes with it
                conn.execute(
                    delete(self.models.Authenticator.__table__).where(
                        self.authenticator["user_id"] == self._owner(found["user_id"]),
                        self.authenticator["provider_account_id"] == provider_account_id,
                    )
                )
            return found

        return self._retried(work)  # type: ignore[no-any-return]

    def create_user_and_account(self, user: Record, account: Record) -> tuple[Record, Record]:
        def work(conn: Connection) -> tuple[Record, Record]:
            created = self._insert_user(conn, user)
            return created, self._insert_account(conn, {**account, "user_id": created["id"]})

        return self._retried(work)  # type: ignore[no-any-return]

    def get_account(self, provider: str, provider_account_id: str) -> Record | None:
        query = self._select(self.account, ACCOUNT_KEYS).where(
            self.account["provider"] == provider,
            self.account["provider_account_id"] == provider_account_id,
        )
        with self._read() as conn:
            return self._account(conn.execute(query).first())

    def list_accounts_by_user_id(self, user_id: str) -> list[Record]:
        key = self._key(user_id)
        if key is None:
            return []
        query = self._select(self.account, ACCOUNT_KEYS).where(self.account["user_id"] == key)
        with self._read() as conn:
            rows = conn.execute(query.order_by(self.account["id"])).all()
        return [a for a in map(self._account, rows) if a is not None]

    def update_account_tokens(
        self, provider: str, provider_account_id: str, expected: str | None, tokens: Record
    ) -> Record | None:
        where = (
            self.account["provider"] == provider,
            self.account["provider_account_id"] == provider_account_id,
        )

        def work(conn: Connection) -> Record | None:
            if tokens:
                values = {self.account[k].key: v for k, v in tokens.items()}
                changed = conn.execute(
                    update(self.models.Account.__table__)
                    .where(*where, self.account["refresh_token"].is_not_distinct_from(expected))
                    .values(values)
                ).rowcount
                if changed != 1:
                    return None
            found = self._account(
                conn.execute(self._select(self.account, ACCOUNT_KEYS).where(*where)).first()
            )
            if not tokens and (found is None or found["refresh_token"] != expected):
                return None
            return found

        return self._retried(work)  # type: ignore[no-any-return]

    # sessions

    def create_session(self, session: Record) -> Record:
        values = {self.session[k].key: session.get(k) for k in SESSION_KEYS}
        values[self.session["user_id"].key] = self._owner(session["user_id"])

        def work(conn: Connection) -> None:
            conn.execute(insert(self.models.Session.__table__).values(values))

        self._retried(work)
        return session

    def get_session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        with self._read() as conn:
            row = conn.execute(self.session_check, {"token": session_token}).first()
        return None if row is None else self.session_and_user_records(row)

    def session_and_user_records(self, row: Sequence[Any]) -> tuple[Record, Record]:
        """A row of the session check as the session and its user."""
        session = self._session(row[: len(SESSION_KEYS)])
        user = self._user(row, len(SESSION_KEYS))
        assert session is not None
        assert user is not None
        return session, user

    def update_session(self, update_: Record) -> Record | None:
        values: dict[str, Any] = {}
        if "user_id" in update_:
            values[self.session["user_id"].key] = self._owner(update_["user_id"])
        for key in ("expires", "last_seen_at"):
            if key in update_:
                values[self.session[key].key] = update_[key]
        where = self.session["session_token"] == update_["session_token"]

        def work(conn: Connection) -> Record | None:
            if values:
                conn.execute(update(self.models.Session.__table__).where(where).values(values))
            return self._session(
                conn.execute(self._select(self.session, SESSION_KEYS).where(where)).first()
            )

        return self._retried(work)  # type: ignore[no-any-return]

    def delete_session(self, session_token: str) -> Record | None:
        where = self.session["session_token"] == session_token

        def work(conn: Connection) -> Record | None:
            found = self._session(
                conn.execute(self._select(self.session, SESSION_KEYS).where(where)).first()
            )
            if found is None:
                return None
            deleted = conn.execute(delete(self.models.Session.__table__).where(where)).rowcount
            return found if deleted == 1 else None

        return self._retried(work)  # type: ignore[no-any-return]

    def delete_sessions_by_user_id(self, user_id: str) -> int:
        key = self._key(user_id)
        if key is None:
            return 0

        def work(conn: Connection) -> int:
            table = self.models.Session.__table__
            return conn.execute(delete(table).where(self.session["user_id"] == key)).rowcount

        return self._retried(work)  # type: ignore[no-any-return]

    # verification tokens

    def create_verification_token(self, token: Record) -> Record:
        values = {self.token[k].key: token[k] for k in ("identifier", "token", "expires")}

        def work(conn: Connection) -> None:
            conn.execute(insert(self.models.VerificationToken.__table__).values(values))

        self._retried(work)
        return token

    def use_verification_token(self, identifier: str, token: str) -> Record | None:
        keys = ("identifier", "token", "expires")
        where = (self.token["identifier"] == identifier, self.token["token"] == token)

        def work(conn: Connection) -> Record | None:
            found = self._record(
                conn.execute(self._select(self.token, keys).where(*where)).first(), keys
            )
            if found is None:
                return None
            # Of two racing uses both may read the row; only one deletes it.
            table = self.models.VerificationToken.__table__
            deleted = conn.execute(delete(table).where(*where)).rowcount
            return found if deleted == 1 else None

        return self._retried(work)  # type: ignore[no-any-return]

    # authenticators

    def get_authenticator(self, credential_id: str) -> Record | None:
        query = self._select(self.authenticator, AUTHENTICATOR_FIELDS).where(
            self.authenticator["credential_id"] == credential_id
        )
        with self._read() as conn:
            return self._authenticator(conn.execute(query).first())

    def create_authenticator(self, authenticator: Record) -> Record:
        values = {self.authenticator[k].key: v for k, v in authenticator.items()}
        values[self.authenticator["user_id"].key] = self._owner(authenticator["user_id"])

        def work(conn: Connection) -> None:
            conn.execute(insert(self.models.Authenticator.__table__).values(values))

        self._retried(work)
        return authenticator

    def list_authenticators_by_user_id(self, user_id: str) -> list[Record]:
        key = self._key(user_id)
        if key is None:
            return []
        query = self._select(self.authenticator, AUTHENTICATOR_FIELDS).where(
            self.authenticator["user_id"] == key
        )
        with self._read() as conn:
            rows = conn.execute(query.order_by(self.authenticator["credential_id"])).all()
        return [a for a in map(self._authenticator, rows) if a is not None]

    def update_authenticator_counter(self, credential_id: str, counter: int) -> Record:
        where = self.authenticator["credential_id"] == credential_id
        table = self.models.Authenticator.__table__

        def work(conn: Connection) -> Record:
            conn.execute(
                update(table).where(where).values({self.authenticator["counter"].key: counter})
            )
            found = self._authenticator(
                conn.execute(
                    self._select(self.authenticator, AUTHENTICATOR_FIELDS).where(where)
                ).first()
            )
            if found is None:
                raise LookupError(f"no authenticator with credential id {credential_id!r}")
            return found

        return self._retried(work)  # type: ignore[no-any-return]

    # revocations

    def delete_sessions_by_sid(self, sid: str) -> int:
        def work(conn: Connection) -> int:
            table = self.models.Session.__table__
            return conn.execute(delete(table).where(self.session["sid"] == sid)).rowcount

        return self._retried(work)  # type: ignore[no-any-return]

    def set_sessions_not_before(
        self, key: str, not_before: datetime, expires: datetime | None = None
    ) -> None:
        """A later mark wins, its expiry the later one (``None``, kept, wins); marks whose
        expiry ``not_before`` (the engine's now) has passed are forgotten."""
        table = self.models.SessionRevocation.__table__
        column, mark, until = (self.revocation[k] for k in ("key", "not_before", "expires"))

        def work(conn: Connection) -> None:
            conn.execute(delete(table).where(until <= not_before))
            row = conn.execute(select(mark, until).where(column == key).with_for_update()).first()
            if row is None:
                values = {column.key: key, mark.key: not_before, until.key: expires}
                conn.execute(insert(table).values(values))
                return
            was, kept = as_utc(row[0]), row[1]
            later = None if kept is None or expires is None else max(as_utc(kept), expires)
            values = {mark.key: max(was, not_before), until.key: later}
            conn.execute(update(table).where(column == key).values(values))

        self._first_write_wins(work)

    def _first_write_wins(self, work: Any) -> Any:
        """``work`` in a transaction, again when a racing one inserted the same key first
        (``work`` then finds and updates that row)."""
        for attempt in range(_ATTEMPTS):
            try:
                return self._retried(work)
            except AdapterConflict:
                if attempt == _ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def get_sessions_not_before(self, keys: list[str]) -> datetime | None:
        query = select(func.max(self.revocation["not_before"])).where(
            self.revocation["key"].in_(keys)
        )
        with self._read() as conn:
            latest = conn.execute(query).scalar()
        return None if latest is None else as_utc(latest)

    # rate-limit counters

    def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        """See :class:`sansio_auth.adapters.Counters`: a counter whose window has passed
        starts again; expired counters are purged now and then."""
        table = self.models.RateLimitCounter.__table__
        column, count, reset_at = (self.counter[k] for k in ("key", "count", "reset_at"))

        def work(conn: Connection) -> tuple[int, datetime]:
            if self._purge.due():
                conn.execute(delete(table).where(reset_at <= now))
            row = conn.execute(
                select(count, reset_at).where(column == key).with_for_update()
            ).first()
            if row is not None and as_utc(row[1]) > now:
                conn.execute(update(table).where(column == key).values({count.key: count + 1}))
                return int(row[0]) + 1, as_utc(row[1])
            fresh = now + timedelta(seconds=window)
            values = {count.key: 1, reset_at.key: fresh}
            if row is None:
                conn.execute(insert(table).values({column.key: key, **values}))
            else:
                conn.execute(update(table).where(column == key).values(values))
            return 1, fresh

        return self._first_write_wins(work)  # type: ignore[no-any-return]
