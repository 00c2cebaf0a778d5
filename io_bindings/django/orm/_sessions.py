"""The Django ORM store's part for a user's own sessions (not in Auth.js): session rows with
their device, the user's sessions listed, and the records of JWT sessions
(:class:`~io_bindings.django.orm.models.SessionRecord`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sansio_auth.adapters import AdapterConflict

from ...db._base import SESSION_DEVICE_FIELDS, SESSION_RECORD_FIELDS, Record, device_of
from ._transactions import first_row
from ._user_fields import UserFields, from_db, to_db

T = TypeVar("T")
SESSION_LOOKUPS = ("session_token", "user_id", "expires", "sid", *SESSION_DEVICE_FIELDS)
"""The fields a session row is read with (:func:`session_record`)."""


def _device(values: Sequence[Any]) -> Record:
    """The device keys of the four device fields' values, those that are set."""
    found = dict(zip(SESSION_DEVICE_FIELDS, values, strict=True))
    for key in ("created_at", "last_seen_at"):
        found[key] = from_db(found[key])
    return device_of(found)


def session_record(row: Sequence[Any]) -> Record:
    """A session row read with :data:`SESSION_LOOKUPS` as a session."""
    record = {"session_token": row[0], "user_id": str(row[1]), "expires": from_db(row[2])}
    if row[3] is not None:  # only a session of a provider session has a sid
        record["sid"] = row[3]
    return {**record, **_device(row[4:8])}


def device_values(record: Record) -> dict[str, Any]:
    """The device fields' values for a session or record to write."""
    return {
        "created_at": to_db(record.get("created_at")),
        "last_seen_at": to_db(record.get("last_seen_at")),
        "user_agent": record.get("user_agent"),
        "ip_address": record.get("ip_address"),
    }


def _record(row: Sequence[Any] | None) -> Record | None:
    if row is None:
        return None
    found = {"sid": row[0], "user_id": row[1], "expires": from_db(row[2])}
    return {**found, **_device(row[3:7])}


class SessionRecords:
    """The methods, on the store's transactions and helpers (declared here, the store's)."""

    @property
    def users(self) -> UserFields:
        raise NotImplementedError  # the store's

    def _objects(self, model: Any) -> Any:
        raise NotImplementedError  # the store's

    def _models(self) -> Any:
        raise NotImplementedError  # the store's

    def _read(self, work: Callable[[], T]) -> T:
        raise NotImplementedError  # the store's

    def _write(self, work: Callable[[], T]) -> T:
        raise NotImplementedError  # the store's

    def _records(self, **where: Any) -> Any:
        return self._objects(self._models().SessionRecord).filter(**where)

    def list_sessions_by_user_id(self, user_id: str) -> list[Record]:
        key = self.users.key(user_id)
        if key is None:
            return []
        query = self._objects(self._models().Session).filter(user_id=key)
        rows = self._read(lambda: list(query.order_by("pk").values_list(*SESSION_LOOKUPS)))
        return [session_record(row) for row in rows]

    def create_session_record(self, record: Record) -> Record:
        values = {
            "sid": record["sid"],
            "user_id": record["user_id"],
            "expires": to_db(record["expires"]),
            **device_values(record),
        }

        def work() -> None:
            if self._records(sid=record["sid"]).exists():
                raise AdapterConflict("a session record with this sid exists")
            self._objects(self._models().SessionRecord).create(**values)

        self._write(work)
        return record

    def _record(self, sid: str) -> Record | None:
        return _record(first_row(self._records(sid=sid).values_list(*SESSION_RECORD_FIELDS)))

    def touch_session_record(
        self, sid: str, last_seen_at: datetime, expires: datetime
    ) -> Record | None:
        values = {"last_seen_at": to_db(last_seen_at), "expires": to_db(expires)}

        def work() -> Record | None:
            if self._records(sid=sid).update(**values) != 1:
                return None
            return self._record(sid)

        return self._write(work)

    def list_session_records(self, user_id: str) -> list[Record]:
        query = self._records(user_id=user_id).values_list(*SESSION_RECORD_FIELDS)
        return [r for r in map(_record, self._read(lambda: list(query))) if r is not None]

    def delete_session_record(self, sid: str) -> Record | None:
        def work() -> Record | None:
            found = self._record(sid)
            if found is None:
                return None
            deleted, _ = self._records(sid=sid).delete()
            return found if deleted == 1 else None

        return self._write(work)
