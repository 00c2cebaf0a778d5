"""The Redis store's part for the account features (beyond Auth.js), mixed into
:class:`~.redis.RedisStore`::

    user:password:<id>                      the user's password hash
    user:two-factor:<id>                    the user's second factor (JSON)
    user:session-record:<sid>               a JWT session's record (JSON), expires with it
    user:by-user-id:session-record:<id>     set of the user's record sids

The password hash and second factor go with their user (:meth:`~.redis.RedisStore.delete_user`);
the uses of a TOTP step and of a recovery code are ``WATCH``/``MULTI`` transactions, so of two
racing uses one wins. Session rows keep their device keys in their JSON as they are. A record
is written in a ``MULTI``/``EXEC`` with its index, under ``WATCH`` as every other write of the
store. The methods of :class:`~._accounts.AccountStoreMethods`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import redis
from redis.client import Pipeline

from sansio_auth.adapters import AdapterConflict

from ._base import Record

RECORDS = "session-record"
"""The kind of the per-user index of session records (``_by_user``'s)."""


def millis(value: datetime) -> int:
    """``value`` in Unix milliseconds (at least 1: ``PXAT`` takes no 0)."""
    return max(int(value.timestamp() * 1000), 1)


def text(value: Any) -> str:
    """A value redis-py read, as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisAccounts:
    """The methods, on the store's client and helpers (declared here, defined by the store)."""

    client: redis.Redis
    prefix: str

    def _transaction(self, body: Callable[[Pipeline], Any], *watches: str) -> Any:
        raise NotImplementedError  # the store's

    def _user_key(self, user_id: str) -> str:
        raise NotImplementedError  # the store's

    def _check_user(self, pipe: Pipeline, user_id: str) -> None:
        raise NotImplementedError  # the store's

    def _by_user(self, kind: str, user_id: str) -> str:
        raise NotImplementedError  # the store's

    def _session_key(self, session_token: str) -> str:
        raise NotImplementedError  # the store's

    def _dump(self, record: Record) -> bytes:
        raise NotImplementedError  # the store's

    def _load(self, value: Any) -> Record | None:
        raise NotImplementedError  # the store's

    def _password_key(self, user_id: str) -> str:
        return f"{self.prefix}user:password:{user_id}"

    def _two_factor_key(self, user_id: str) -> str:
        return f"{self.prefix}user:two-factor:{user_id}"

    def _record_key(self, sid: str) -> str:
        return f"{self.prefix}user:{RECORDS}:{sid}"

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
        return (
            None if ":" in user_id else self._load(self.client.get(self._two_factor_key(user_id)))
        )

    def set_two_factor(self, record: Record) -> Record:
        user_id = record["user_id"]

        def body(pipe: Pipeline) -> Record:
            self._check_user(pipe, user_id)
            pipe.multi()
            pipe.set(self._two_factor_key(user_id), self._dump(record))
            return record

        return self._transaction(body, self._user_key(user_id))  # type: ignore[no-any-return]

    def delete_two_factor(self, user_id: str) -> Record | None:
        if ":" in user_id:
            return None
        return self._load(self.client.getdel(self._two_factor_key(user_id)))

    def _update(self, user_id: str, change: Callable[[Record], bool]) -> bool:
        """Apply ``change`` to the user's second factor atomically; whether it changed it."""
        if ":" in user_id:
            return False
        key = self._two_factor_key(user_id)

        def body(pipe: Pipeline) -> bool:
            record = self._load(pipe.get(key))
            if record is None or not change(record):
                return False
            pipe.multi()
            pipe.set(key, self._dump(record))
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

    def list_sessions_by_user_id(self, user_id: str) -> list[Record]:
        tokens = sorted(map(text, self.client.smembers(self._by_user("session", user_id))))
        if not tokens:
            return []
        values = self.client.mget([self._session_key(t) for t in tokens])
        return [s for s in map(self._load, values) if s is not None]

    def create_session_record(self, record: Record) -> Record:
        key = self._record_key(record["sid"])

        def body(pipe: Pipeline) -> Record:
            if pipe.exists(key):
                raise AdapterConflict("a session record with this sid exists")
            pipe.multi()
            pipe.set(key, self._dump(record), pxat=millis(record["expires"]))
            pipe.sadd(self._by_user(RECORDS, record["user_id"]), record["sid"])
            return record

        return self._transaction(body, key)  # type: ignore[no-any-return]

    def touch_session_record(
        self, sid: str, last_seen_at: datetime, expires: datetime
    ) -> Record | None:
        key = self._record_key(sid)

        def body(pipe: Pipeline) -> Record | None:
            found = self._load(pipe.get(key))
            if found is None:
                return None
            found.update(last_seen_at=last_seen_at, expires=expires)
            pipe.multi()
            pipe.set(key, self._dump(found), pxat=millis(expires))
            return found

        return self._transaction(body, key)  # type: ignore[no-any-return]

    def list_session_records(self, user_id: str) -> list[Record]:
        index = self._by_user(RECORDS, user_id)
        sids = sorted(map(text, self.client.smembers(index)))
        if not sids:
            return []
        values = self.client.mget([self._record_key(sid) for sid in sids])
        gone = [sid for sid, value in zip(sids, values, strict=True) if value is None]
        if gone:  # expired records: their index entries go too
            self.client.srem(index, *gone)
        return [r for r in map(self._load, values) if r is not None]

    def delete_session_record(self, sid: str) -> Record | None:
        key = self._record_key(sid)

        def body(pipe: Pipeline) -> Record | None:
            found = self._load(pipe.get(key))
            if found is not None:
                pipe.multi()
                pipe.delete(key)
                pipe.srem(self._by_user(RECORDS, found["user_id"]), sid)
            return found

        return self._transaction(body, key)  # type: ignore[no-any-return]
