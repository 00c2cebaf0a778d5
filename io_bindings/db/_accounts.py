"""The account methods the adapters of :mod:`io_bindings.db` add to Auth.js's interface:
password hashes and second factors (:class:`sansio_auth.adapters.AccountStore`).

:class:`AccountMethods` is the async side, mixed into an adapter (before
:class:`~._base.StoreAdapter`) whose store implements the synchronous
:class:`AccountStoreMethods`, one transaction per method: memory, SQLite, PostgreSQL and
Redis do. An adapter without them (the SQLAlchemy one, for now) has no password accounts
or two-factor: start-up names the missing methods.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from sansio_auth.adapters import TwoFactor

T = TypeVar("T")
Record = dict[str, Any]
TWO_FACTOR_FIELDS = ("user_id", "totp_secret", "totp_last_step", "recovery_codes", "enabled_at")


def normal_two_factor(record: Mapping[str, Any]) -> Record:
    """A second factor to store: every field present and typed."""
    from ._base import utc  # _base imports this module

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


class AccountMethods:
    """The async :class:`~sansio_auth.adapters.AccountStore` methods over a store."""

    _store: Any
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
