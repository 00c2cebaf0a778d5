"""The Redis store's part for a user's own sessions (not in Auth.js): the user's sessions
listed, and the records of JWT sessions::

    user:session-record:<sid>               a JWT session's record (JSON), expires with it
    user:by-user-id:session-record:<id>     set of the user's record sids

Session rows keep their device keys in their JSON as they are. A record is written in a
``MULTI``/``EXEC`` with its index, under ``WATCH`` as every other write of the store."""

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


class OwnSessions:
    """The methods, on the store's client and helpers (declared here, defined by the store)."""

    client: redis.Redis
    prefix: str

    def _transaction(self, body: Callable[[Pipeline], Any], *watches: str) -> Any:
        raise NotImplementedError  # the store's

    def _by_user(self, kind: str, user_id: str) -> str:
        raise NotImplementedError  # the store's

    def _session_key(self, session_token: str) -> str:
        raise NotImplementedError  # the store's

    def _dump(self, record: Record) -> bytes:
        raise NotImplementedError  # the store's

    def _load(self, value: Any) -> Record | None:
        raise NotImplementedError  # the store's

    def _record_key(self, sid: str) -> str:
        return f"{self.prefix}user:{RECORDS}:{sid}"

    def list_sessions_by_user_id(self, user_id: str) -> list[Record]:
        tokens = sorted(map(_text, self.client.smembers(self._by_user("session", user_id))))
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
            pipe.set(key, self._dump(record), pxat=_ms(record["expires"]))
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
            pipe.set(key, self._dump(found), pxat=_ms(expires))
            return found

        return self._transaction(body, key)  # type: ignore[no-any-return]

    def list_session_records(self, user_id: str) -> list[Record]:
        index = self._by_user(RECORDS, user_id)
        sids = sorted(map(_text, self.client.smembers(index)))
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


def _ms(value: datetime) -> int:
    return max(int(value.timestamp() * 1000), 1)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
