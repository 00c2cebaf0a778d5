"""The Redis store's password hashes and second factors (:mod:`._accounts`)::

    user:password:<id>      the user's password hash
    user:two-factor:<id>    the user's second factor (JSON)

Both go with their user (:meth:`~.redis.RedisStore.delete_user`); the uses of a TOTP step
and of a recovery code are ``WATCH``/``MULTI`` transactions, so of two racing uses one wins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import redis
from redis.client import Pipeline

from ._accounts import Record
from ._base import format_time, parse_time


def _load(value: Any) -> Record | None:
    if value is None:
        return None
    record: Record = msgspec.json.decode(value)
    record["enabled_at"] = parse_time(record["enabled_at"])
    return record


def _dump(record: Record) -> bytes:
    return msgspec.json.encode({**record, "enabled_at": format_time(record["enabled_at"])})


class RedisAccounts:
    """Mixed into :class:`~.redis.RedisStore`."""

    client: redis.Redis
    prefix: str

    def _user_key(self, user_id: str) -> str:
        raise NotImplementedError

    def _transaction(self, body: Callable[[Pipeline], Any], *watches: str) -> Any:
        raise NotImplementedError

    def _check_user(self, pipe: Pipeline, user_id: str) -> None:
        raise NotImplementedError

    def _password_key(self, user_id: str) -> str:
        return f"{self.prefix}user:password:{user_id}"

    def _two_factor_key(self, user_id: str) -> str:
        return f"{self.prefix}user:two-factor:{user_id}"

    def account_keys(self, user_id: str) -> list[str]:
        """The keys of the user's password hash and second factor (deleted with the user)."""
        return [self._password_key(user_id), self._two_factor_key(user_id)]

    def get_password_hash(self, user_id: str) -> str | None:
        if ":" in user_id:
            return None
        value = self.client.get(self._password_key(user_id))
        if value is None:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)

    def set_password_hash(self, user_id: str, password_hash: str | None) -> None:
        if password_hash is None:
            if ":" not in user_id:
                self.client.delete(self._password_key(user_id))
            return

        def body(pipe: Pipeline) -> None:
            self._check_user(pipe, user_id)
            pipe.multi()
            pipe.set(self._password_key(user_id), password_hash)

        self._transaction(body, self._user_key(user_id))

    def get_two_factor(self, user_id: str) -> Record | None:
        return None if ":" in user_id else _load(self.client.get(self._two_factor_key(user_id)))

    def set_two_factor(self, record: Record) -> Record:
        user_id = record["user_id"]

        def body(pipe: Pipeline) -> Record:
            self._check_user(pipe, user_id)
            pipe.multi()
            pipe.set(self._two_factor_key(user_id), _dump(record))
            return record

        return self._transaction(body, self._user_key(user_id))  # type: ignore[no-any-return]

    def delete_two_factor(self, user_id: str) -> Record | None:
        if ":" in user_id:
            return None
        return _load(self.client.getdel(self._two_factor_key(user_id)))

    def _update(self, user_id: str, change: Callable[[Record], bool]) -> bool:
        """Apply ``change`` to the user's second factor atomically; whether it changed it."""
        if ":" in user_id:
            return False
        key = self._two_factor_key(user_id)

        def body(pipe: Pipeline) -> bool:
            record = _load(pipe.get(key))
            if record is None or not change(record):
                return False
            pipe.multi()
            pipe.set(key, _dump(record))
            return True

        return bool(self._transaction(body, key))

    def use_totp_step(self, user_id: str, step: int) -> bool:
        def change(record: Record) -> bool:
            last = record.get("totp_last_step")
            if last is not None and last >= step:
                return False
            record["totp_last_step"] = step
            return True

        return self._update(user_id, change)

    def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        def change(record: Record) -> bool:
            if code_hash not in record["recovery_codes"]:
                return False
            record["recovery_codes"].remove(code_hash)
            return True

        return self._update(user_id, change)
