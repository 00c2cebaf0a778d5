"""The Django ORM store's part for the account features (beyond Auth.js), mixed into
:class:`~io_bindings.django.orm.store.DjangoStore`: password hashes (Django's, in
``user.password``: :mod:`._passwords`) and second factors (``UserTwoFactor``), session rows with
their device, the user's sessions listed, and the records of JWT sessions (``SessionRecord``).
The methods of :class:`~io_bindings.db._accounts.AccountStoreMethods`.

A TOTP step is used by one conditional ``UPDATE``, a recovery code under a row lock
(``SELECT ... FOR UPDATE``; SQLite's write transactions take the database lock when they
begin), so of two racing uses one wins."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from django.contrib.auth.hashers import is_password_usable, make_password
from django.db.models import Q

from sansio_auth.adapters import AdapterConflict

from ...db._base import (
    SESSION_DEVICE_FIELDS,
    SESSION_RECORD_FIELDS,
    Record,
    device_of,
    with_sid,
)
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
    return with_sid({**record, **_device(row[4:8])}, row[3])


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


TWO_FACTOR_LOOKUPS = ("totp_secret", "totp_last_step", "recovery_codes", "enabled_at")


class DjangoAccounts:
    """The methods, on the store's transactions and helpers (declared here, the store's)."""

    using: str

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

    def _first_write_wins(self, work: Callable[[], None]) -> None:
        raise NotImplementedError  # the store's

    def _owner(self, user_id: str) -> Any:
        raise NotImplementedError  # the store's

    # password hashes: Django's own, in the user model's ``password`` field

    def get_password_hash(self, user_id: str) -> str | None:
        """``user.password``; ``None`` when it is unusable or empty, or no such user."""
        key = self.users.key(user_id)
        if key is None:
            return None
        query = self._objects(self.users.model).filter(pk=key).values_list("password")
        row = self._read(lambda: first_row(query))
        encoded = None if row is None else row[0]
        return encoded if encoded and is_password_usable(encoded) else None

    def set_password_hash(self, user_id: str, password_hash: str | None) -> None:
        """Set ``user.password`` (``None``: an unusable one) and ``save()`` that field, as
        Django's own upgrade on sign-in does (``post_save`` receivers run)."""
        key = self._owner(user_id)
        model = self.users.model

        def work() -> None:
            user = self._objects(model).select_for_update().filter(pk=key).first()
            if user is None:
                raise LookupError(f"no user with id {user_id!r}")
            user.password = make_password(None) if password_hash is None else password_hash
            user.save(using=self.using, update_fields=["password"])

        self._write(work)

    # second factors

    def _two_factors(self, key: Any) -> Any:
        return self._objects(self._models().UserTwoFactor).filter(user_id=key)

    def _two_factor(self, key: Any, user_id: str) -> Record | None:
        row = first_row(self._two_factors(key).values_list(*TWO_FACTOR_LOOKUPS))
        if row is None:
            return None
        secret, last_step, codes, enabled_at = row
        return {
            "user_id": user_id,
            "totp_secret": secret,
            "totp_last_step": last_step,
            "recovery_codes": list(codes),
            "enabled_at": from_db(enabled_at),
        }

    def get_two_factor(self, user_id: str) -> Record | None:
        key = self.users.key(user_id)
        return None if key is None else self._read(lambda: self._two_factor(key, user_id))

    def set_two_factor(self, record: Record) -> Record:
        key = self._owner(record["user_id"])
        values = {
            "totp_secret": record["totp_secret"],
            "totp_last_step": record["totp_last_step"],
            "recovery_codes": list(record["recovery_codes"]),
            "enabled_at": to_db(record["enabled_at"]),
        }

        def work() -> None:
            if not self._two_factors(key).update(**values):
                self._objects(self._models().UserTwoFactor).create(user_id=key, **values)

        self._first_write_wins(work)
        return record

    def delete_two_factor(self, user_id: str) -> Record | None:
        key = self.users.key(user_id)
        if key is None:
            return None

        def work() -> Record | None:
            found = self._two_factor(key, user_id)
            if found is not None:
                self._two_factors(key).delete()
            return found

        return self._write(work)

    def use_totp_step(self, user_id: str, step: int) -> bool:
        key = self.users.key(user_id)
        if key is None:
            return False
        later = Q(totp_last_step__isnull=True) | Q(totp_last_step__lt=step)
        moved: int = self._write(
            lambda: self._two_factors(key).filter(later).update(totp_last_step=step)
        )
        return moved == 1

    def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        key = self.users.key(user_id)
        if key is None:
            return False

        def work() -> bool:
            locked = self._two_factors(key).select_for_update()
            row = first_row(locked.values_list("recovery_codes"))
            if row is None or code_hash not in row[0]:
                return False
            locked.update(recovery_codes=[c for c in row[0] if c != code_hash])
            return True

        return self._write(work)

    # the user's sessions, and the records of JWT sessions

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
