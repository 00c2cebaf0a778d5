"""The Redis adapter: users, accounts, sessions and verification tokens as JSON values.

>>> from io_bindings.db.redis import RedisAdapter
>>> config = AuthConfig(adapter=RedisAdapter("redis://localhost:6379/0"), providers=[...])

Needs the ``redis`` extra (redis-py) and Redis 6.2 or later. redis-py's
asyncio client runs only on asyncio, so this adapter uses its synchronous,
thread-safe client in anyio worker threads: the same adapter works on asyncio
and trio. The key layout follows Auth.js's upstash-redis adapter (all keys
under ``key_prefix``)::

    user:<id>                               the user (JSON)
    user:email:<email>                      → user id
    user:account:<provider>:<account id>    the account (JSON)
    user:session:<token>                    the session (JSON), expires with it
    user:token:<identifier>:<token>         a verification token (JSON), expires with it
    user:authenticator:<credential id>      an authenticator (JSON)
    user:by-user-id:account:<id>            set of the user's account keys
    user:by-user-id:session:<id>            set of the user's session tokens
    user:by-user-id:authenticator:<id>      set of the user's credential ids
    user:password:<id>, ...                 the account features (see _redis_accounts)
    sid:<sid>                               set of the session tokens of a provider
                                            session (TTL: its latest session's expiry)
    revocation:<key>                        a "not before" mark (TTL: until it expires)
    counter:<key>                           a rate-limit counter (hash; TTL: its window)
    flight:lease:<key>                      a claimed refresh (see below), expires
    flight:answer:<key>                     its sealed answer, expires

User ids, provider ids and verification tokens never contain ``:``, so no two
records share a key (a proposed user id with ``:`` is replaced by a new one;
provider ids and tokens with ``:`` are refused). Unlike upstream, the
per-user sets hold *every* account and session, and tokens are keyed by
identifier *and* token.

The session check is one round trip (a Lua script reads the session, then its user).
Writes that touch several keys run in ``MULTI``/``EXEC`` transactions guarded
by ``WATCH`` (retried when another client changed a watched key), so each
method is atomic; a verification token is taken with ``GETDEL``. Sessions and
tokens carry their expiry as the key's TTL, so Redis removes them when they expire.

The adapter is also a shared single-flight store for refreshes
(:class:`~sansio_auth.adapters.SingleFlightStore`, :mod:`._redis_flights`): with it as the
adapter, or as ``AuthConfig(single_flight=...)``, processes never send one refresh token twice.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec
import redis
from redis.client import Pipeline

from sansio_auth.adapters import AdapterConflict

from ._accounts import AccountMethods
from ._base import Record, StoreAdapter, format_time, new_id, parse_time
from ._redis_accounts import RECORDS, RedisAccounts, millis, text
from ._redis_flights import RedisFlights

MINIMUM_VERSION = (6, 2)  # GETDEL, SET PXAT
"""The oldest Redis server the adapter runs on (it needs ``GETDEL`` and ``SET PXAT``)."""
DEFAULT_TIMEOUT = 10.0
"""Seconds a command waits for the server (redis-py's ``socket_timeout``) unless given."""

_TIMES = ("email_verified", "expires", "created_at", "last_seen_at", "enabled_at")
# The session check in one round trip: the session (KEYS[1]), then its user (ARGV[1] is the
# prefix of user keys). A user id with ":" never names a user (see the module docstring).
_SESSION_AND_USER = """
local session = redis.call('GET', KEYS[1])
if not session then return {} end
local user_id = cjson.decode(session)['user_id']
if type(user_id) ~= 'string' or string.find(user_id, ':', 1, true) then return {session} end
local user = redis.call('GET', ARGV[1] .. user_id)
if not user then return {session} end
return {session, user}
"""


# A rate-limit counter (KEYS[1]) at the engine's time ARGV[1] (ms), window ARGV[2] (ms): its
# count and reset time. The key's TTL, on Redis's clock, only lets Redis forget it.
_INCREMENT = """
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local reset = tonumber(redis.call('HGET', KEYS[1], 'reset') or '0')
if reset <= now then
  reset = now + window
  redis.call('HSET', KEYS[1], 'count', 1, 'reset', reset)
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, reset}
end
return {redis.call('HINCRBY', KEYS[1], 'count', 1), reset}
"""


def _dump(record: Record) -> bytes:
    return msgspec.json.encode(
        {k: format_time(v) if k in _TIMES and v is not None else v for k, v in record.items()}
    )


def _load(value: Any) -> Record | None:
    return None if value is None else _decoded(value)


def _decoded(value: bytes) -> Record:
    record: Record = msgspec.json.decode(value)
    for key in _TIMES:
        if record.get(key) is not None:
            record[key] = parse_time(record[key])
    return record


class RedisStore(RedisAccounts):
    """The synchronous store behind :class:`RedisAdapter`."""

    def __init__(self, url: str, *, key_prefix: str, **options: Any) -> None:
        for timeout in ("socket_timeout", "socket_connect_timeout"):
            options.setdefault(timeout, DEFAULT_TIMEOUT)  # a silent server never hangs a call
        self.client: redis.Redis = redis.Redis.from_url(url, **options)
        self.prefix = key_prefix
        self._session_and_user = self.client.register_script(_SESSION_AND_USER)
        self.flights = RedisFlights(self.client, key_prefix)
        self._increment = self.client.register_script(_INCREMENT)

    def open(self) -> None:
        """Check that the server answers and is recent enough."""
        info: dict[str, Any] = self.client.info("server")
        version = tuple(int(p) for p in str(info["redis_version"]).split(".")[:2])
        if version < MINIMUM_VERSION:
            raise RuntimeError(f"the Redis adapter needs Redis 6.2 or later, not {version}")

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()

    def _dump(self, record: Record) -> bytes:
        return _dump(record)

    def _load(self, value: Any) -> Record | None:
        return _load(value)

    def _user_key(self, user_id: str) -> str:
        return f"{self.prefix}user:{user_id}"

    def _email_key(self, email: str) -> str:
        return f"{self.prefix}user:email:{email}"

    def _account_key(self, provider: str, provider_account_id: str) -> str:
        return f"{self.prefix}user:account:{provider}:{provider_account_id}"

    def _session_key(self, session_token: str) -> str:
        return f"{self.prefix}user:session:{session_token}"

    def _token_key(self, identifier: str, token: str) -> str:
        return f"{self.prefix}user:token:{identifier}:{token}"

    def _authenticator_key(self, credential_id: str) -> str:
        return f"{self.prefix}user:authenticator:{credential_id}"

    def _by_user(self, kind: str, user_id: str) -> str:
        return f"{self.prefix}user:by-user-id:{kind}:{user_id}"

    def _sid_key(self, sid: str) -> str:
        return f"{self.prefix}sid:{sid}"

    def _transaction(self, body: Callable[[Pipeline], Any], *watches: str) -> Any:
        """Run ``body`` (reads, then ``pipe.multi()``, then writes) until no watched key changed."""
        return self.client.transaction(body, *watches, value_from_callable=True)

    def _get(self, key: str) -> Record | None:
        return _load(self.client.get(key))

    def _check_user(self, pipe: Pipeline, user_id: str) -> None:
        """Refuse a reference to a user who does not exist (the key must be watched)."""
        if ":" in user_id or not pipe.exists(self._user_key(user_id)):
            raise LookupError(f"no user with id {user_id!r}")

    def _check_new_user(self, pipe: Pipeline, user: Record) -> None:
        if pipe.exists(self._user_key(user["id"])):
            raise AdapterConflict("a user with this id exists")
        if user["email"] is not None and pipe.exists(self._email_key(user["email"])):
            raise AdapterConflict("a user with this e-mail address exists")

    def _write_user(self, pipe: Pipeline, user: Record) -> None:
        pipe.set(self._user_key(user["id"]), _dump(user))
        if user["email"] is not None:
            pipe.set(self._email_key(user["email"]), user["id"])

    def _write_account(self, pipe: Pipeline, account: Record) -> None:
        key = self._account_key(account["provider"], account["provider_account_id"])
        pipe.set(key, _dump(account))
        pipe.sadd(self._by_user("account", account["user_id"]), key)

    def _user_keys(self, user: Record) -> list[str]:
        keys = [self._user_key(user["id"])]
        return keys + ([self._email_key(user["email"])] if user["email"] is not None else [])

    def create_user(self, user: Record) -> Record:
        if ":" in user["id"]:
            user = {**user, "id": new_id()}

        def body(pipe: Pipeline) -> Record:
            self._check_new_user(pipe, user)
            pipe.multi()
            self._write_user(pipe, user)
            return user

        return self._transaction(body, *self._user_keys(user))  # type: ignore[no-any-return]

    def get_user(self, user_id: str) -> Record | None:
        return None if ":" in user_id else self._get(self._user_key(user_id))

    def get_user_by_email(self, email: str) -> Record | None:
        user_id = self.client.get(self._email_key(email))
        return None if user_id is None else self.get_user(text(user_id))

    def get_user_by_account(self, provider: str, provider_account_id: str) -> Record | None:
        account = self.get_account(provider, provider_account_id)
        return None if account is None else self.get_user(account["user_id"])

    def update_user(self, update: Record) -> Record:
        if ":" in update["id"]:
            raise LookupError(f"no user with id {update['id']!r}")
        key = self._user_key(update["id"])

        def body(pipe: Pipeline) -> Record:
            user = _load(pipe.get(key))
            if user is None:
                raise LookupError(f"no user with id {update['id']!r}")
            new = {**user, **update}
            moved = new["email"] != user["email"]
            if moved and new["email"] is not None:
                pipe.watch(self._email_key(new["email"]))  # type: ignore[no-untyped-call]
                if pipe.exists(self._email_key(new["email"])):
                    raise AdapterConflict("a user with this e-mail address exists")
            pipe.multi()
            if moved and user["email"] is not None:
                pipe.delete(self._email_key(user["email"]))
            self._write_user(pipe, new)
            return new

        return self._transaction(body, key)  # type: ignore[no-any-return]

    def delete_user(self, user_id: str) -> Record | None:
        if ":" in user_id:
            return None
        kinds = ("account", "session", "authenticator", RECORDS)
        sets = [self._by_user(kind, user_id) for kind in kinds]

        def body(pipe: Pipeline) -> Record | None:
            user = _load(pipe.get(self._user_key(user_id)))
            if user is None:
                return None
            accounts, sessions, authenticators, records = (pipe.smembers(key) for key in sets)
            pipe.multi()
            pipe.delete(*self._user_keys(user), *sets, *map(text, accounts))
            pipe.delete(*self.account_keys(user_id))
            for token in map(text, sessions):
                pipe.delete(self._session_key(token))
            for credential_id in map(text, authenticators):
                pipe.delete(self._authenticator_key(credential_id))
            for sid in map(text, records):
                pipe.delete(self._record_key(sid))
            return user

        return self._transaction(body, self._user_key(user_id), *sets)  # type: ignore[no-any-return]

    def _check_new_account(self, pipe: Pipeline, account: Record) -> None:
        if pipe.exists(self._account_key(account["provider"], account["provider_account_id"])):
            raise AdapterConflict("this account is linked already")

    def link_account(self, account: Record) -> Record:
        _check_provider(account["provider"])
        user_key = self._user_key(account["user_id"])

        def body(pipe: Pipeline) -> Record:
            self._check_new_account(pipe, account)
            self._check_user(pipe, account["user_id"])
            pipe.multi()
            self._write_account(pipe, account)
            return account

        key = self._account_key(account["provider"], account["provider_account_id"])
        return self._transaction(body, key, user_key)  # type: ignore[no-any-return]

    def unlink_account(self, provider: str, provider_account_id: str) -> Record | None:
        if ":" in provider:
            return None
        key = self._account_key(provider, provider_account_id)

        def body(pipe: Pipeline) -> Record | None:
            account = _load(pipe.get(key))
            if account is None:
                return None
            passkeys = []
            if account["type"] == "webauthn":  # its authenticators go with it
                index = self._by_user("authenticator", account["user_id"])
                pipe.watch(index)  # type: ignore[no-untyped-call]
                for credential_id in map(text, pipe.smembers(index)):
                    found = _load(pipe.get(self._authenticator_key(credential_id)))
                    if found and found["provider_account_id"] == provider_account_id:
                        passkeys.append(credential_id)
            pipe.multi()
            pipe.delete(key)
            pipe.srem(self._by_user("account", account["user_id"]), key)
            for credential_id in passkeys:
                pipe.delete(self._authenticator_key(credential_id))
                pipe.srem(self._by_user("authenticator", account["user_id"]), credential_id)
            return account

        return self._transaction(body, key)  # type: ignore[no-any-return]

    def create_user_and_account(self, user: Record, account: Record) -> tuple[Record, Record]:
        _check_provider(account["provider"])
        if ":" in user["id"]:
            user = {**user, "id": new_id()}
            account = {**account, "user_id": user["id"]}

        def body(pipe: Pipeline) -> tuple[Record, Record]:
            self._check_new_user(pipe, user)
            self._check_new_account(pipe, account)
            pipe.multi()
            self._write_user(pipe, user)
            self._write_account(pipe, account)
            return user, account

        key = self._account_key(account["provider"], account["provider_account_id"])
        return self._transaction(body, *self._user_keys(user), key)  # type: ignore[no-any-return]

    def _write_session(self, pipe: Pipeline, session: Record) -> None:
        key = self._session_key(session["session_token"])
        expires = millis(session["expires"])
        pipe.set(key, _dump(session), pxat=expires)
        pipe.sadd(self._by_user("session", session["user_id"]), session["session_token"])
        if session.get("sid") is not None:
            sid_key = self._sid_key(session["sid"])
            pipe.sadd(sid_key, session["session_token"])
            pipe.pexpireat(sid_key, expires)

    def _forget_session(self, pipe: Pipeline, session: Record) -> None:
        """Delete a session's key and its entries in the indexes (in a ``MULTI``)."""
        token = session["session_token"]
        pipe.delete(self._session_key(token))
        pipe.srem(self._by_user("session", session["user_id"]), token)
        if session.get("sid") is not None:
            pipe.srem(self._sid_key(session["sid"]), token)

    def create_session(self, session: Record) -> Record:
        key, user_key = (
            self._session_key(session["session_token"]),
            self._user_key(session["user_id"]),
        )

        def body(pipe: Pipeline) -> Record:
            if pipe.exists(key):
                raise AdapterConflict("a session with this token exists")
            self._check_user(pipe, session["user_id"])
            pipe.multi()
            self._write_session(pipe, session)
            return session

        return self._transaction(body, key, user_key)  # type: ignore[no-any-return]

    def get_session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        keys = [self._session_key(session_token)]
        found = self._session_and_user(keys=keys, args=[self._user_key("")])
        if len(found) < 2:
            return None
        return _decoded(found[0]), _decoded(found[1])

    def update_session(self, update: Record) -> Record | None:
        key = self._session_key(update["session_token"])

        def body(pipe: Pipeline) -> Record | None:
            session = _load(pipe.get(key))
            if session is None:
                return None
            new = {**session, **update}
            if new["user_id"] != session["user_id"]:
                pipe.watch(self._user_key(new["user_id"]))  # type: ignore[no-untyped-call]
                self._check_user(pipe, new["user_id"])
            pipe.multi()
            pipe.srem(self._by_user("session", session["user_id"]), session["session_token"])
            self._write_session(pipe, new)
            return new

        return self._transaction(body, key)  # type: ignore[no-any-return]

    def delete_session(self, session_token: str) -> Record | None:
        key = self._session_key(session_token)

        def body(pipe: Pipeline) -> Record | None:
            session = _load(pipe.get(key))
            if session is not None:
                pipe.multi()
                self._forget_session(pipe, session)
            return session

        return self._transaction(body, key)  # type: ignore[no-any-return]

    def create_verification_token(self, token: Record) -> Record:
        if ":" in token["token"]:
            raise ValueError("the Redis adapter takes verification tokens without ':'")
        key = self._token_key(token["identifier"], token["token"])
        if not self.client.set(key, _dump(token), nx=True, pxat=millis(token["expires"])):
            raise AdapterConflict("this verification token exists")
        return token

    def use_verification_token(self, identifier: str, token: str) -> Record | None:
        if ":" in token:
            return None
        return _load(self.client.getdel(self._token_key(identifier, token)))

    def get_account(self, provider: str, provider_account_id: str) -> Record | None:
        if ":" in provider:
            return None
        return self._get(self._account_key(provider, provider_account_id))

    def get_authenticator(self, credential_id: str) -> Record | None:
        return self._get(self._authenticator_key(credential_id))

    def create_authenticator(self, authenticator: Record) -> Record:
        key = self._authenticator_key(authenticator["credential_id"])
        user_key = self._user_key(authenticator["user_id"])

        def body(pipe: Pipeline) -> Record:
            if pipe.exists(key):
                raise AdapterConflict("an authenticator with this credential id exists")
            self._check_user(pipe, authenticator["user_id"])
            pipe.multi()
            pipe.set(key, _dump(authenticator))
            pipe.sadd(
                self._by_user("authenticator", authenticator["user_id"]),
                authenticator["credential_id"],
            )
            return authenticator

        return self._transaction(body, key, user_key)  # type: ignore[no-any-return]

    def list_authenticators_by_user_id(self, user_id: str) -> list[Record]:
        members = sorted(map(text, self.client.smembers(self._by_user("authenticator", user_id))))
        if not members:
            return []
        values = self.client.mget([self._authenticator_key(m) for m in members])
        return [a for a in map(_load, values) if a is not None]

    def update_authenticator_counter(self, credential_id: str, counter: int) -> Record:
        key = self._authenticator_key(credential_id)

        def body(pipe: Pipeline) -> Record:
            authenticator = _load(pipe.get(key))
            if authenticator is None:
                raise LookupError(f"no authenticator with credential id {credential_id!r}")
            authenticator["counter"] = counter
            pipe.multi()
            pipe.set(key, _dump(authenticator))
            return authenticator

        return self._transaction(body, key)  # type: ignore[no-any-return]

    def list_accounts_by_user_id(self, user_id: str) -> list[Record]:
        members = sorted(map(text, self.client.smembers(self._by_user("account", user_id))))
        if not members:
            return []
        return [a for a in map(_load, self.client.mget(members)) if a is not None]

    def update_account_tokens(
        self, provider: str, provider_account_id: str, expected: str | None, tokens: Record
    ) -> Record | None:
        if ":" in provider:
            return None
        key = self._account_key(provider, provider_account_id)

        def body(pipe: Pipeline) -> Record | None:
            account = _load(pipe.get(key))
            if account is None or account.get("refresh_token") != expected:
                return None
            new = {**account, **tokens}
            pipe.multi()
            pipe.set(key, _dump(new))
            return new

        return self._transaction(body, key)  # type: ignore[no-any-return]

    def delete_sessions_by_user_id(self, user_id: str) -> int:
        index = self._by_user("session", user_id)

        def body(pipe: Pipeline) -> int:
            tokens = sorted(map(text, pipe.smembers(index)))
            keys = [self._session_key(t) for t in tokens]
            live = sum(1 for k in keys if pipe.exists(k)) if keys else 0
            pipe.multi()
            if keys:
                pipe.delete(*keys)
            pipe.delete(index)
            return live

        return self._transaction(body, index)  # type: ignore[no-any-return]

    def delete_sessions_by_sid(self, sid: str) -> int:
        index = self._sid_key(sid)

        def body(pipe: Pipeline) -> int:
            tokens = sorted(map(text, pipe.smembers(index)))
            sessions = [s for s in (_load(pipe.get(self._session_key(t))) for t in tokens) if s]
            pipe.multi()
            for session in sessions:
                self._forget_session(pipe, session)
            pipe.delete(index)
            return len(sessions)

        return self._transaction(body, index)  # type: ignore[no-any-return]

    def _revocation_key(self, key: str) -> str:
        return f"{self.prefix}revocation:{key}"

    def set_sessions_not_before(
        self, key: str, not_before: datetime, expires: datetime | None
    ) -> None:
        stored, mark = self._revocation_key(key), millis(not_before)
        # The TTL is a duration on the engine's clock (expires - not_before), kept by Redis's.
        ttl = None if expires is None else max(millis(expires) - mark, 1)

        def body(pipe: Pipeline) -> None:
            current, remaining = pipe.get(stored), pipe.pttl(stored)
            keep = ttl
            if current is not None and (ttl is None or remaining < 0):
                keep = None  # a mark kept for good stays so
            elif current is not None:
                keep = max(ttl or 0, remaining)
            pipe.multi()
            value = mark if current is None else max(int(current), mark)
            pipe.set(stored, value, px=keep)

        self._transaction(body, stored)

    def get_sessions_not_before(self, keys: list[str]) -> datetime | None:
        marks = [int(v) for v in self.client.mget([self._revocation_key(k) for k in keys]) if v]
        return datetime.fromtimestamp(max(marks) / 1000, UTC) if marks else None

    def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        stored = f"{self.prefix}counter:{key}"
        count, reset = self._increment(keys=[stored], args=[millis(now), window * 1000])
        return int(count), datetime.fromtimestamp(int(reset) / 1000, UTC)


def _check_provider(provider: str) -> None:
    if ":" in provider:
        raise ValueError(f"the Redis adapter takes provider ids without ':', not {provider!r}")


class RedisAdapter(AccountMethods, StoreAdapter):
    """The Redis adapter (``AuthConfig(adapter=RedisAdapter("redis://host:6379/0"))``).

    ``key_prefix`` goes before every key (Auth.js's ``baseKeyPrefix``); other
    keyword ``options`` go to :meth:`redis.Redis.from_url` (timeouts, TLS, ...;
    ``socket_timeout`` and ``socket_connect_timeout`` default to 10 s).
    """

    def __init__(self, url: str, *, key_prefix: str = "", **options: Any) -> None:
        self.store = RedisStore(url, key_prefix=key_prefix, **options)
        super().__init__(self.store, threaded=True)

    async def claim_refresh(self, key: str, owner: str, lease: float) -> tuple[bool, bytes | None]:
        """See :class:`sansio_auth.adapters.SingleFlightStore` (this adapter is one: give it as
        ``AuthConfig(single_flight=...)`` when the sessions are elsewhere)."""
        return await self._run(self.store.flights.claim_refresh, key, owner, lease)

    async def await_refresh(self, key: str, wait: float) -> bytes | None:
        """See :class:`sansio_auth.adapters.SingleFlightStore`."""
        return await self._run(self.store.flights.await_refresh, key, wait)

    async def finish_refresh(self, key: str, owner: str, answer: bytes | None, keep: float) -> None:
        """See :class:`sansio_auth.adapters.SingleFlightStore`."""
        await self._run(self.store.flights.finish_refresh, key, owner, answer, keep)
