"""The SQLAlchemy store's part for a user's own sessions (not in Auth.js): the user's sessions
listed, and the records of JWT sessions (the ``SessionRecord`` model)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Column, Connection, delete, insert, select, update

from .._base import SESSION_DEVICE_FIELDS, SESSION_RECORD_FIELDS, Record, device_of
from ._models import AuthModels, as_utc

SESSION_KEYS = ("session_token", "user_id", "expires", *SESSION_DEVICE_FIELDS)
"""The keys a session row is read with."""


def device_record(record: Record) -> Record:
    """A row read with device keys as a record: the device keys only when set."""
    plain = {k: v for k, v in record.items() if k not in SESSION_DEVICE_FIELDS}
    return {**plain, **device_of({k: record.get(k) for k in SESSION_DEVICE_FIELDS})}


class OwnSessions:
    """The methods, on the store's engine and helpers (declared here, defined by the store)."""

    models: AuthModels
    session: dict[str, Column[Any]]

    def _read(self) -> contextlib.AbstractContextManager[Connection]:
        raise NotImplementedError  # the store's

    def _retried(self, work: Callable[..., Any], *args: Any) -> Any:
        raise NotImplementedError  # the store's

    def _key(self, user_id: str) -> Any:
        raise NotImplementedError  # the store's

    def _session(self, row: Sequence[Any] | None) -> Record | None:
        raise NotImplementedError  # the store's

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
