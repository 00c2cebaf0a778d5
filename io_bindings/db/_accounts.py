"""The methods the stores add to Auth.js's interface for the account features
(:class:`sansio_auth.adapters.AccountStore`): password hashes and second factors, the user's
database sessions listed, and the records of JWT sessions.

:class:`AccountMethods` is the async side, mixed into an adapter (before
:class:`~._base.StoreAdapter`) whose store implements the synchronous
:class:`AccountStoreMethods`, one transaction per method: every store of ``io_bindings``
does (memory, SQLite, PostgreSQL, Redis, SQLAlchemy, the Django ORM).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from sansio_auth.adapters import AdapterSession, SessionRecord, TwoFactor

from ._base import Record, normal_session_record, utc

T = TypeVar("T")
TWO_FACTOR_FIELDS = ("user_id", "totp_secret", "totp_last_step", "recovery_codes", "enabled_at")


def normal_two_factor(record: Mapping[str, Any]) -> Record:
    """A second factor to store: every field present and typed."""
    for name in ("user_id", "totp_secret", "enabled_at"):
        if record.get(name) in (None, ""):
            raise ValueError(f"a second factor needs {name}")
    codes = record.get("recovery_codes") or []
    if isinstance(codes, str) or not all(isinstance(c, str) for c in codes):
        raise TypeError("recovery_codes must be a list of strings")
    last = record.get("totp_last_step")
    return {
        "user_id": str(record["user_id"]),
        "totp_secret": str(record["totp_secret"]),
        "totp_last_step": None if last is None else int(last),
        "recovery_codes": list(codes),
        "enabled_at": utc(record["enabled_at"], "enabled_at"),
    }


class AccountStoreMethods(Protocol):
    """The synchronous side of :class:`sansio_auth.adapters.AccountStore`."""

    def get_password_hash(self, user_id: str) -> str | None: ...
    def set_password_hash(self, user_id: str, password_hash: str | None) -> None: ...
    def get_two_factor(self, user_id: str) -> Record | None: ...
    def set_two_factor(self, record: Record) -> Record: ...
    def delete_two_factor(self, user_id: str) -> Record | None: ...
    def use_totp_step(self, user_id: str, step: int) -> bool: ...
    def use_recovery_code(self, user_id: str, code_hash: str) -> bool: ...
    def list_sessions_by_user_id(self, user_id: str) -> list[Record]: ...
    def create_session_record(self, record: Record) -> Record: ...
    def touch_session_record(
        self, sid: str, last_seen_at: datetime, expires: datetime
    ) -> Record | None: ...
    def list_session_records(self, user_id: str) -> list[Record]: ...
    def delete_session_record(self, sid: str) -> Record | None: ...


class AccountMethods:
    """The async :class:`~sansio_auth.adapters.AccountStore` methods over a store."""

    _store: Any  # an AccountStoreMethods (StoreAdapter types it as its Store)
    if TYPE_CHECKING:  # StoreAdapter's, after this class in the adapter's bases

        async def _run(self, function: Callable[..., T], *args: Any) -> T: ...

    async def get_password_hash(self, user_id: str) -> str | None:
        """See :meth:`sansio_auth.adapters.AccountStore.get_password_hash`."""
        return await self._run(self._store.get_password_hash, str(user_id))

    async def set_password_hash(self, user_id: str, password_hash: str | None) -> None:
        """See :meth:`sansio_auth.adapters.AccountStore.set_password_hash`."""
        if password_hash is not None and not isinstance(password_hash, str):
            raise TypeError("a password hash is a string")
        await self._run(self._store.set_password_hash, str(user_id), password_hash)

    async def get_two_factor(self, user_id: str) -> TwoFactor | None:
        """See :meth:`sansio_auth.adapters.AccountStore.get_two_factor`."""
        return cast(TwoFactor | None, await self._run(self._store.get_two_factor, str(user_id)))

    async def set_two_factor(self, two_factor: TwoFactor) -> TwoFactor:
        """See :meth:`sansio_auth.adapters.AccountStore.set_two_factor`."""
        record = normal_two_factor(two_factor)
        return cast(TwoFactor, await self._run(self._store.set_two_factor, record))

    async def delete_two_factor(self, user_id: str) -> TwoFactor | None:
        """See :meth:`sansio_auth.adapters.AccountStore.delete_two_factor`."""
        found = await self._run(self._store.delete_two_factor, str(user_id))
        return cast(TwoFactor | None, found)

    async def use_totp_step(self, user_id: str, step: int) -> bool:
        """See :meth:`sansio_auth.adapters.AccountStore.use_totp_step`."""
        return bool(await self._run(self._store.use_totp_step, str(user_id), int(step)))

    async def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        """See :meth:`sansio_auth.adapters.AccountStore.use_recovery_code`."""
        return bool(await self._run(self._store.use_recovery_code, str(user_id), code_hash))

    async def list_sessions_by_user_id(self, user_id: str) -> list[AdapterSession]:
        """See :meth:`sansio_auth.adapters.AccountStore.list_sessions_by_user_id`."""
        found = await self._run(self._store.list_sessions_by_user_id, str(user_id))
        return cast(list[AdapterSession], found)

    async def create_session_record(self, record: SessionRecord) -> SessionRecord:
        """See :meth:`sansio_auth.adapters.AccountStore.create_session_record`."""
        created = await self._run(self._store.create_session_record, normal_session_record(record))
        return cast(SessionRecord, created)

    async def touch_session_record(
        self, sid: str, last_seen_at: datetime, expires: datetime
    ) -> SessionRecord | None:
        """See :meth:`sansio_auth.adapters.AccountStore.touch_session_record`."""
        seen, until = utc(last_seen_at, "last_seen_at"), utc(expires, "expires")
        found = await self._run(self._store.touch_session_record, str(sid), seen, until)
        return cast(SessionRecord | None, found)

    async def list_session_records(self, user_id: str) -> list[SessionRecord]:
        """See :meth:`sansio_auth.adapters.AccountStore.list_session_records`."""
        found = await self._run(self._store.list_session_records, str(user_id))
        return cast(list[SessionRecord], found)

    async def delete_session_record(self, sid: str) -> SessionRecord | None:
        """See :meth:`sansio_auth.adapters.AccountStore.delete_session_record`."""
        found = await self._run(self._store.delete_session_record, str(sid))
        return cast(SessionRecord | None, found)
