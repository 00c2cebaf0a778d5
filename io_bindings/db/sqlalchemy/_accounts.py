"""The SQLAlchemy store's part for the account features (beyond Auth.js), mixed into
:class:`~._store.SQLAlchemyStore`: password hashes and second factors (the ``UserPassword``
and ``UserTwoFactor`` models), the user's sessions listed, and the records of JWT sessions
(the ``SessionRecord`` model). The methods of
:class:`~io_bindings.db._accounts.AccountStoreMethods`.

A recovery code or a TOTP step is used in one statement (a conditional ``UPDATE``) or
under a row lock (``SELECT ... FOR UPDATE``; SQLite's write transactions take the database
lock when they begin), so of two racing uses one wins."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Column, Connection, delete, insert, or_, select, update

from .._base import SESSION_DEVICE_FIELDS, SESSION_RECORD_FIELDS, Record, device_of, with_sid
from ._models import AuthModels, as_utc

SESSION_KEYS = ("session_token", "user_id", "expires", "sid", *SESSION_DEVICE_FIELDS)
"""The keys a session row is read with."""


def device_record(record: Record) -> Record:
    """A session row read with its ``sid`` and device keys as a record: those only when set
    (only a session of a provider session has a sid)."""
    plain = {k: v for k, v in record.items() if k not in SESSION_DEVICE_FIELDS and k != "sid"}
    device = device_of({k: record.get(k) for k in SESSION_DEVICE_FIELDS})
    return with_sid({**plain, **device}, record.get("sid"))


TWO_FACTOR_KEYS = ("user_id", "totp_secret", "totp_last_step", "recovery_codes", "enabled_at")


class SQLAlchemyAccounts:
    """The methods, on the store's engine and helpers (declared here, defined by the store)."""

    models: AuthModels
    session: dict[str, Column[Any]]

    def _read(self) -> contextlib.AbstractContextManager[Connection]:
        raise NotImplementedError  # the store's

    def _retried(self, work: Callable[..., Any], *args: Any) -> Any:
        raise NotImplementedError  # the store's

    def _key(self, user_id: str) -> Any:
        raise NotImplementedError  # the store's

    def _owner(self, user_id: str) -> Any:
        raise NotImplementedError  # the store's

    def _session(self, row: Sequence[Any] | None) -> Record | None:
        raise NotImplementedError  # the store's

    # password hashes

    @property
    def _passwords(self) -> dict[str, Column[Any]]:
        return dict(self.models.UserPassword.__mapper__.columns.items())

    def get_password_hash(self, user_id: str) -> str | None:
        key = self._key(user_id)
        if key is None:
            return None
        columns = self._passwords
        query = select(columns["hash"]).where(columns["user_id"] == key)
        with self._read() as conn:
            found = conn.execute(query).scalar()
        return None if found is None else str(found)

    def set_password_hash(self, user_id: str, password_hash: str | None) -> None:
        columns, table = self._passwords, self.models.UserPassword.__table__

        def work(conn: Connection, key: Any) -> None:
            where = columns["user_id"] == key
            conn.execute(delete(table).where(where))
            if password_hash is not None:
                values = {columns["user_id"].key: key, columns["hash"].key: password_hash}
                conn.execute(insert(table).values(values))

        if password_hash is None:
            key = self._key(user_id)
            if key is not None:
                self._retried(work, key)
            return
        self._retried(work, self._owner(user_id))

    # second factors

    @property
    def _two_factors(self) -> dict[str, Column[Any]]:
        return dict(self.models.UserTwoFactor.__mapper__.columns.items())

    def _two_factor_of(self, row: Sequence[Any] | None, user_id: str) -> Record | None:
        if row is None:
            return None
        found = dict(zip(TWO_FACTOR_KEYS, row, strict=True))
        return {
            **found,
            "user_id": user_id,
            "recovery_codes": list(found["recovery_codes"]),
            "enabled_at": as_utc(found["enabled_at"]),
        }

    def _select_two_factor(self, key: Any) -> Any:
        columns = self._two_factors
        query = select(*(columns[k] for k in TWO_FACTOR_KEYS))
        return query.where(columns["user_id"] == key)

    def get_two_factor(self, user_id: str) -> Record | None:
        key = self._key(user_id)
        if key is None:
            return None
        with self._read() as conn:
            return self._two_factor_of(conn.execute(self._select_two_factor(key)).first(), user_id)

    def set_two_factor(self, record: Record) -> Record:
        columns, table = self._two_factors, self.models.UserTwoFactor.__table__
        key = self._owner(record["user_id"])
        values = {columns[k].key: record[k] for k in TWO_FACTOR_KEYS if k != "user_id"}

        def work(conn: Connection) -> None:
            conn.execute(delete(table).where(columns["user_id"] == key))
            conn.execute(insert(table).values({columns["user_id"].key: key, **values}))

        self._retried(work)
        return record

    def delete_two_factor(self, user_id: str) -> Record | None:
        key = self._key(user_id)
        if key is None:
            return None
        columns, table = self._two_factors, self.models.UserTwoFactor.__table__

        def work(conn: Connection) -> Record | None:
            query = self._select_two_factor(key).with_for_update()
            found = self._two_factor_of(conn.execute(query).first(), user_id)
            if found is not None:
                conn.execute(delete(table).where(columns["user_id"] == key))
            return found

        return self._retried(work)  # type: ignore[no-any-return]

    def use_totp_step(self, user_id: str, step: int) -> bool:
        key = self._key(user_id)
        if key is None:
            return False
        columns, table = self._two_factors, self.models.UserTwoFactor.__table__
        last = columns["totp_last_step"]
        where = (columns["user_id"] == key) & or_(last.is_(None), last < step)

        def work(conn: Connection) -> bool:
            changed = conn.execute(update(table).where(where).values({last.key: step}))
            return changed.rowcount == 1

        return bool(self._retried(work))

    def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        key = self._key(user_id)
        if key is None:
            return False
        columns, table = self._two_factors, self.models.UserTwoFactor.__table__
        codes_column = columns["recovery_codes"]

        def work(conn: Connection) -> bool:
            query = select(codes_column).where(columns["user_id"] == key).with_for_update()
            codes = conn.execute(query).scalar()
            if codes is None or code_hash not in codes:
                return False
            left = [c for c in codes if c != code_hash]
            where = columns["user_id"] == key
            conn.execute(update(table).where(where).values({codes_column.key: left}))
            return True

        return bool(self._retried(work))

    # the user's sessions, and the records of JWT sessions

    @property
    def _records(self) -> dict[str, Column[Any]]:
        return dict(self.models.SessionRecord.__mapper__.columns.items())

    def _record_of(self, row: Sequence[Any] | None) -> Record | None:
        if row is None:
            return None
        found = dict(zip(SESSION_RECORD_FIELDS, row, strict=True))
        for key, value in found.items():
            if isinstance(value, datetime):
                found[key] = as_utc(value)
        return device_record(found)

    def _select_records(self) -> Any:
        return select(*(self._records[key] for key in SESSION_RECORD_FIELDS))

    def list_sessions_by_user_id(self, user_id: str) -> list[Record]:
        key = self._key(user_id)
        if key is None:
            return []
        query = select(*(self.session[k] for k in SESSION_KEYS)).where(
            self.session["user_id"] == key
        )
        with self._read() as conn:
            rows = conn.execute(query).all()
        return [s for s in map(self._session, rows) if s is not None]

    def create_session_record(self, record: Record) -> Record:
        columns = self._records
        values = {columns[k].key: record.get(k) for k in SESSION_RECORD_FIELDS}

        def work(conn: Connection) -> None:
            conn.execute(insert(self.models.SessionRecord.__table__).values(values))

        self._retried(work)
        return record

    def touch_session_record(
        self, sid: str, last_seen_at: datetime, expires: datetime
    ) -> Record | None:
        columns = self._records
        where = columns["sid"] == sid
        values = {columns["last_seen_at"].key: last_seen_at, columns["expires"].key: expires}

        def work(conn: Connection) -> Record | None:
            table = self.models.SessionRecord.__table__
            if conn.execute(update(table).where(where).values(values)).rowcount != 1:
                return None
            return self._record_of(conn.execute(self._select_records().where(where)).first())

        return self._retried(work)  # type: ignore[no-any-return]

    def list_session_records(self, user_id: str) -> list[Record]:
        query = self._select_records().where(self._records["user_id"] == user_id)
        with self._read() as conn:
            rows = conn.execute(query).all()
        return [r for r in map(self._record_of, rows) if r is not None]

    def delete_session_record(self, sid: str) -> Record | None:
        where = self._records["sid"] == sid

        def work(conn: Connection) -> Record | None:
            found = self._record_of(conn.execute(self._select_records().where(where)).first())
            if found is None:
                return None
            table = self.models.SessionRecord.__table__
            deleted = conn.execute(delete(table).where(where)).rowcount
            return found if deleted == 1 else None

        return self._retried(work)  # type: ignore[no-any-return]

    def forget_records(self, conn: Connection, user_id: str) -> None:
        """In ``delete_user``'s transaction: the user's session records go too."""
        table = self.models.SessionRecord.__table__
        conn.execute(delete(table).where(self._records["user_id"] == user_id))
