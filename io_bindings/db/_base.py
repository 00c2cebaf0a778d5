"""What every adapter of :mod:`io_bindings.db` shares.

Each adapter is a synchronous *store* (one transaction per method, blocking
driver) wrapped in :class:`StoreAdapter`, which gives it the async
:class:`~sansio_auth.adapters.Adapter` interface. Blocking stores run in anyio
worker threads, so the same adapter works on asyncio and on trio. A cancelled
call (a deadline, a client gone) returns at once, and its thread is told to stop: a
store whose driver can cancel a query in the server (psycopg) marks the connection it
works on with :func:`._cancel.stoppable`, and its query is cancelled there, so the transaction
fails and is rolled back, and the connection goes back to its pool. A call cancelled
before it took a connection does not start. Either way its transaction happens
completely or not at all (one that reached its ``COMMIT`` first stays committed), but
the caller does not wait to know which.
Records are normalised here, once, so every store gets and returns the same shape.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar, cast

import anyio.to_thread

from sansio_auth.adapters import (
    AccountTokens,
    AdapterAccount,
    AdapterSession,
    AdapterUser,
    Authenticator,
    SessionAndUser,
    SessionUpdate,
    UserAndAccount,
    UserUpdate,
    VerificationToken,
)

from ._cancel import CALL, StoreCall

T = TypeVar("T")
Record = dict[str, Any]

USER_FIELDS = ("id", "email", "email_verified", "name", "image")
TOKEN_FIELDS = (
    "access_token",
    "token_type",
    "id_token",
    "refresh_token",
    "scope",
    "expires_at",
    "session_state",
)
ACCOUNT_FIELDS = ("user_id", "type", "provider", "provider_account_id", *TOKEN_FIELDS)
SESSION_FIELDS = ("session_token", "user_id", "expires")
SESSION_DEVICE_FIELDS = ("created_at", "last_seen_at", "user_agent", "ip_address")
"""What a session row keeps for the user's list of sessions (not in Auth.js)."""
SESSION_RECORD_FIELDS = ("sid", "user_id", "expires", *SESSION_DEVICE_FIELDS)
"""The keys of a JWT session's record."""
AUTHENTICATOR_FIELDS = (
    "credential_id",
    "user_id",
    "provider_account_id",
    "credential_public_key",
    "counter",
    "credential_device_type",
    "credential_backed_up",
    "transports",
)


def utc(value: Any, field: str) -> datetime:
    """``value`` as an aware UTC datetime; naive datetimes are refused (their zone is unknown)."""
    if not isinstance(value, datetime):
        raise TypeError(f"{field} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{field} must be timezone-aware (UTC), got naive {value!r}")
    return value.astimezone(UTC)


def optional_utc(value: Any, field: str) -> datetime | None:
    """:func:`utc`, letting ``None`` through."""
    return None if value is None else utc(value, field)


def format_time(value: datetime) -> str:
    """A fixed-width, sortable UTC text form (microseconds kept)."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime:
    """The inverse of :func:`format_time` (any ISO 8601 form with a zone)."""
    return utc(datetime.fromisoformat(text), "stored time")


PURGE_INTERVAL = 60.0
"""Seconds between two purges of expired rate-limit counters by one store."""


class Every:
    """Says when ``seconds`` have passed since it last said so (thread-safe; for the stores'
    housekeeping, on the process's monotonic clock, never the engine's)."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._next = 0.0
        self._lock = threading.Lock()

    def due(self) -> bool:
        """Whether it is time again (then not again for ``seconds``)."""
        now = time.monotonic()
        with self._lock:
            if now < self._next:
                return False
            self._next = now + self._seconds
            return True


def new_id() -> str:
    """A fresh random user id."""
    return str(uuid.uuid4())


def _require(record: Mapping[str, Any], kind: str, *fields: str) -> None:
    missing = [f for f in fields if record.get(f) in (None, "")]
    if missing:
        raise ValueError(f"{kind} needs {', '.join(missing)}")


def normal_user(user: Mapping[str, Any]) -> Record:
    """A user to create: every standard key present, an ``id`` (kept or new), UTC time."""
    out = dict(user)
    out["id"] = str(user.get("id") or new_id())
    out["email"] = user.get("email")
    out["email_verified"] = optional_utc(user.get("email_verified"), "email_verified")
    out.setdefault("name", None)
    out.setdefault("image", None)
    return out


def normal_user_update(update: Mapping[str, Any]) -> Record:
    """An update: ``id`` required, other keys only as given."""
    _require(update, "update_user", "id")
    out = dict(update)
    out["id"] = str(update["id"])
    if "email_verified" in out:
        out["email_verified"] = optional_utc(out["email_verified"], "email_verified")
    return out


def normal_account(account: Mapping[str, Any]) -> Record:
    """An account to link: required keys checked, every token key present."""
    _require(account, "an account", "user_id", "type", "provider", "provider_account_id")
    out = dict(account)
    out["user_id"] = str(account["user_id"])
    out["provider_account_id"] = str(account["provider_account_id"])
    for field in TOKEN_FIELDS:
        out.setdefault(field, None)
    expires_at = out["expires_at"]
    if expires_at is not None:
        out["expires_at"] = int(expires_at)
    return out


def normal_token_changes(tokens: Mapping[str, Any]) -> Record:
    """The token keys of an :meth:`update_account_tokens` (others are refused)."""
    unknown = sorted(set(tokens) - set(TOKEN_FIELDS))
    if unknown:
        raise ValueError(f"update_account_tokens takes token keys only, not {', '.join(unknown)}")
    return dict(tokens)


def normal_session(session: Mapping[str, Any]) -> Record:
    """A session to create (its device keys and ``sid`` only when given)."""
    _require(session, "a session", *SESSION_FIELDS)
    out: Record = {
        "session_token": str(session["session_token"]),
        "user_id": str(session["user_id"]),
        "expires": utc(session["expires"], "expires"),
        **device_of(session),
    }
    if session.get("sid") is not None:
        out["sid"] = str(session["sid"])
    return out


def with_sid(session: Record, sid: str | None) -> Record:
    """A stored session as returned: ``sid`` only when the row has one."""
    if sid is not None:
        session["sid"] = sid
    return session


def normal_counter(key: str, window: int, now: datetime) -> tuple[str, int, datetime]:
    """The arguments of :meth:`~sansio_auth.adapters.Counters.increment_counter`, checked."""
    _require({"key": key}, "a counter", "key")
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        raise ValueError(f"a counter's window must be a positive number of seconds, not {window!r}")
    return str(key), window, utc(now, "now")


def device_of(record: Mapping[str, Any]) -> Record:
    """The device keys (:data:`SESSION_DEVICE_FIELDS`) of a session, a session record or a
    row, those that are set (times as aware UTC datetimes, checked)."""
    out: Record = {}
    for field in ("created_at", "last_seen_at"):
        if record.get(field) is not None:
            out[field] = utc(record[field], field)
    for field in ("user_agent", "ip_address"):
        value = record.get(field)
        if value is not None:
            if not isinstance(value, str):
                raise TypeError(f"{field} must be a string, got {type(value).__name__}")
            out[field] = value
    return out


def normal_session_record(record: Mapping[str, Any]) -> Record:
    """A JWT session's record to create (``last_seen_at`` defaults to ``created_at``)."""
    _require(record, "a session record", "sid", "user_id", "expires", "created_at")
    out = {
        "sid": str(record["sid"]),
        "user_id": str(record["user_id"]),
        "expires": utc(record["expires"], "expires"),
        **device_of(record),
    }
    out.setdefault("last_seen_at", out["created_at"])
    return out


def normal_session_update(update: Mapping[str, Any]) -> Record:
    """A session update: ``session_token`` required, other keys only as given."""
    _require(update, "update_session", "session_token")
    out: Record = {"session_token": str(update["session_token"])}
    if "user_id" in update:
        out["user_id"] = str(update["user_id"])
    if "expires" in update:
        out["expires"] = utc(update["expires"], "expires")
    if "last_seen_at" in update:
        out["last_seen_at"] = utc(update["last_seen_at"], "last_seen_at")
    return out


def normal_token(token: Mapping[str, Any]) -> Record:
    """A verification token to create."""
    _require(token, "a verification token", "identifier", "token", "expires")
    return {
        "identifier": str(token["identifier"]),
        "token": str(token["token"]),
        "expires": utc(token["expires"], "expires"),
    }


def normal_authenticator(authenticator: Mapping[str, Any]) -> Record:
    """An authenticator to create."""
    _require(
        authenticator,
        "an authenticator",
        "credential_id",
        "user_id",
        "provider_account_id",
        "credential_public_key",
        "credential_device_type",
    )
    out = {f: authenticator.get(f) for f in AUTHENTICATOR_FIELDS}
    out["user_id"] = str(out["user_id"])
    out["counter"] = int(authenticator.get("counter") or 0)
    out["credential_backed_up"] = bool(authenticator.get("credential_backed_up"))
    return out


def session_and_user(found: tuple[Record, Record] | None) -> SessionAndUser | None:
    """A store's ``(session, user)`` as :meth:`Adapter.get_session_and_user` returns it."""
    if found is None:
        return None
    return cast(SessionAndUser, {"session": found[0], "user": found[1]})


class Store(Protocol):
    """The synchronous side of an adapter: the same methods, each one transaction.

    Arguments arrive normalised (see ``normal_*``); results use the same shapes.
    """

    def open(self) -> None: ...
    def close(self) -> None:
        """Release what :meth:`open` took, also after :meth:`open` failed half way."""

    def create_user(self, user: Record) -> Record: ...
    def get_user(self, user_id: str) -> Record | None: ...
    def get_user_by_email(self, email: str) -> Record | None: ...
    def get_user_by_account(self, provider: str, provider_account_id: str) -> Record | None: ...
    def update_user(self, update: Record) -> Record: ...
    def delete_user(self, user_id: str) -> Record | None: ...
    def link_account(self, account: Record) -> Record: ...
    def unlink_account(self, provider: str, provider_account_id: str) -> Record | None: ...
    def create_user_and_account(self, user: Record, account: Record) -> tuple[Record, Record]: ...
    def create_session(self, session: Record) -> Record: ...
    def get_session_and_user(self, session_token: str) -> tuple[Record, Record] | None: ...
    def update_session(self, update: Record) -> Record | None: ...
    def delete_session(self, session_token: str) -> Record | None: ...
    def create_verification_token(self, token: Record) -> Record: ...
    def use_verification_token(self, identifier: str, token: str) -> Record | None: ...
    def get_account(self, provider: str, provider_account_id: str) -> Record | None: ...
    def get_authenticator(self, credential_id: str) -> Record | None: ...
    def create_authenticator(self, authenticator: Record) -> Record: ...
    def list_authenticators_by_user_id(self, user_id: str) -> list[Record]: ...
    def update_authenticator_counter(self, credential_id: str, counter: int) -> Record: ...
    def list_accounts_by_user_id(self, user_id: str) -> list[Record]: ...
    def update_account_tokens(
        self, provider: str, provider_account_id: str, expected: str | None, tokens: Record
    ) -> Record | None: ...
    def delete_sessions_by_user_id(self, user_id: str) -> int: ...
    def delete_sessions_by_sid(self, sid: str) -> int: ...
    def set_sessions_not_before(
        self, key: str, not_before: datetime, expires: datetime | None
    ) -> None: ...
    def get_sessions_not_before(self, keys: list[str]) -> datetime | None: ...
    def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]: ...


class StoreAdapter:
    """The async :class:`~sansio_auth.adapters.Adapter` over a :class:`Store`.

    The store is opened (connected, schema created or migrated) on first use or
    by :meth:`open`, and again on the next call if that failed; :meth:`aclose`
    releases it. Use ``async with`` for both.
    """

    def __init__(self, store: Store, *, threaded: bool) -> None:
        self._store = store
        self._threaded = threaded
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._calls = 0
        self._state: str = "new"

    @property
    def is_open(self) -> bool:
        """Whether the store is open (and not closed since)."""
        return self._state == "open"

    async def _run(self, function: Callable[..., T], *args: Any) -> T:
        if not self._threaded:
            return self._opened(function, *args)
        call = StoreCall()
        try:
            return await anyio.to_thread.run_sync(
                self._threaded_call, call, function, args, abandon_on_cancel=True
            )
        except anyio.get_cancelled_exc_class():
            call.cancel()
            raise

    def _threaded_call(
        self, call: StoreCall, function: Callable[..., T], args: tuple[Any, ...]
    ) -> T:
        mark = CALL.set(call)
        try:
            return self._opened(function, *args)
        finally:
            CALL.reset(mark)
            call.done.set()

    def _opened(self, function: Callable[..., T], *args: Any) -> T:
        with self._lock:
            if self._state == "closed":
                raise RuntimeError("this adapter has been closed")
            if self._state == "new":
                try:
                    self._store.open()
                except BaseException:
                    with contextlib.suppress(Exception):
                        self._store.close()  # a later call tries again from scratch
                    raise
                self._state = "open"
            self._calls += 1  # an abandoned call may still run: close() waits for it
        try:
            return function(*args)
        finally:
            with self._lock:
                self._calls -= 1
                if not self._calls:
                    self._idle.notify_all()

    async def open(self) -> None:
        """Connect and create or migrate the schema now (else it happens on first use)."""
        await self._run(lambda: None)

    async def aclose(self) -> None:
        """Release connections once the calls still running (abandoned by a deadline) have
        ended; later calls raise :class:`RuntimeError`."""

        def close() -> None:
            with self._lock:
                was_open, self._state = self._state == "open", "closed"
                while self._calls:  # calls a deadline abandoned, still in their threads
                    self._idle.wait()
                if was_open:
                    self._store.close()

        if self._threaded:
            await anyio.to_thread.run_sync(close)
        else:
            close()

    async def __aenter__(self) -> StoreAdapter:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def create_user(self, user: AdapterUser) -> AdapterUser:
        """See :meth:`sansio_auth.adapters.Adapter.create_user`."""
        return cast(AdapterUser, await self._run(self._store.create_user, normal_user(user)))

    async def get_user(self, user_id: str) -> AdapterUser | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_user`."""
        return cast(AdapterUser | None, await self._run(self._store.get_user, str(user_id)))

    async def get_user_by_email(self, email: str) -> AdapterUser | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_user_by_email`."""
        return cast(AdapterUser | None, await self._run(self._store.get_user_by_email, email))

    async def get_user_by_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterUser | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_user_by_account`."""
        found = await self._run(self._store.get_user_by_account, provider, provider_account_id)
        return cast(AdapterUser | None, found)

    async def update_user(self, user: UserUpdate) -> AdapterUser:
        """See :meth:`sansio_auth.adapters.Adapter.update_user`."""
        update = normal_user_update(user)
        return cast(AdapterUser, await self._run(self._store.update_user, update))

    async def delete_user(self, user_id: str) -> AdapterUser | None:
        """See :meth:`sansio_auth.adapters.Adapter.delete_user`."""
        return cast(AdapterUser | None, await self._run(self._store.delete_user, str(user_id)))

    async def link_account(self, account: AdapterAccount) -> AdapterAccount:
        """See :meth:`sansio_auth.adapters.Adapter.link_account`."""
        linked = await self._run(self._store.link_account, normal_account(account))
        return cast(AdapterAccount, linked)

    async def unlink_account(
        self, provider: str, provider_account_id: str
    ) -> AdapterAccount | None:
        """See :meth:`sansio_auth.adapters.Adapter.unlink_account`."""
        found = await self._run(self._store.unlink_account, provider, provider_account_id)
        return cast(AdapterAccount | None, found)

    async def create_user_and_account(
        self, user: AdapterUser, account: AdapterAccount
    ) -> UserAndAccount:
        """See :meth:`sansio_auth.adapters.AtomicSignUp.create_user_and_account`."""
        new_user = normal_user(user)
        new_account = normal_account({**account, "user_id": new_user["id"]})
        stored = await self._run(self._store.create_user_and_account, new_user, new_account)
        return cast(UserAndAccount, {"user": stored[0], "account": stored[1]})

    async def create_session(self, session: AdapterSession) -> AdapterSession:
        """See :meth:`sansio_auth.adapters.Adapter.create_session`."""
        created = await self._run(self._store.create_session, normal_session(session))
        return cast(AdapterSession, created)

    async def get_session_and_user(self, session_token: str) -> SessionAndUser | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_session_and_user`."""
        return session_and_user(await self._run(self._store.get_session_and_user, session_token))

    async def update_session(self, session: SessionUpdate) -> AdapterSession | None:
        """See :meth:`sansio_auth.adapters.Adapter.update_session`."""
        updated = await self._run(self._store.update_session, normal_session_update(session))
        return cast(AdapterSession | None, updated)

    async def delete_session(self, session_token: str) -> AdapterSession | None:
        """See :meth:`sansio_auth.adapters.Adapter.delete_session`."""
        found = await self._run(self._store.delete_session, session_token)
        return cast(AdapterSession | None, found)

    async def create_verification_token(self, token: VerificationToken) -> VerificationToken:
        """See :meth:`sansio_auth.adapters.Adapter.create_verification_token`."""
        created = await self._run(self._store.create_verification_token, normal_token(token))
        return cast(VerificationToken, created)

    async def use_verification_token(self, identifier: str, token: str) -> VerificationToken | None:
        """See :meth:`sansio_auth.adapters.Adapter.use_verification_token`."""
        found = await self._run(self._store.use_verification_token, identifier, token)
        return cast(VerificationToken | None, found)

    async def get_account(self, provider: str, provider_account_id: str) -> AdapterAccount | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_account`."""
        found = await self._run(self._store.get_account, provider, provider_account_id)
        return cast(AdapterAccount | None, found)

    async def get_authenticator(self, credential_id: str) -> Authenticator | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_authenticator`."""
        found = await self._run(self._store.get_authenticator, credential_id)
        return cast(Authenticator | None, found)

    async def create_authenticator(self, authenticator: Authenticator) -> Authenticator:
        """See :meth:`sansio_auth.adapters.Adapter.create_authenticator`."""
        record = normal_authenticator(authenticator)
        return cast(Authenticator, await self._run(self._store.create_authenticator, record))

    async def list_authenticators_by_user_id(self, user_id: str) -> list[Authenticator]:
        """See :meth:`sansio_auth.adapters.Adapter.list_authenticators_by_user_id`."""
        found = await self._run(self._store.list_authenticators_by_user_id, str(user_id))
        return cast(list[Authenticator], found)

    async def update_authenticator_counter(
        self, credential_id: str, new_counter: int
    ) -> Authenticator:
        """See :meth:`sansio_auth.adapters.Adapter.update_authenticator_counter`."""
        updated = await self._run(
            self._store.update_authenticator_counter, credential_id, int(new_counter)
        )
        return cast(Authenticator, updated)

    async def list_accounts_by_user_id(self, user_id: str) -> list[AdapterAccount]:
        """See :meth:`sansio_auth.adapters.Adapter.list_accounts_by_user_id`."""
        found = await self._run(self._store.list_accounts_by_user_id, str(user_id))
        return cast(list[AdapterAccount], found)

    async def update_account_tokens(
        self,
        provider: str,
        provider_account_id: str,
        expected_refresh_token: str | None,
        tokens: AccountTokens,
    ) -> AdapterAccount | None:
        """See :meth:`sansio_auth.adapters.Adapter.update_account_tokens`."""
        changes = normal_token_changes(tokens)
        updated = await self._run(
            self._store.update_account_tokens,
            provider,
            str(provider_account_id),
            expected_refresh_token,
            changes,
        )
        return cast(AdapterAccount | None, updated)

    async def delete_sessions_by_user_id(self, user_id: str) -> int:
        """See :meth:`sansio_auth.adapters.Adapter.delete_sessions_by_user_id`."""
        return await self._run(self._store.delete_sessions_by_user_id, str(user_id))

    async def delete_sessions_by_sid(self, sid: str) -> int:
        """See :meth:`sansio_auth.adapters.Adapter.delete_sessions_by_sid`."""
        return await self._run(self._store.delete_sessions_by_sid, str(sid))

    async def set_sessions_not_before(
        self, key: str, not_before: datetime, expires: datetime | None = None
    ) -> None:
        """See :meth:`sansio_auth.adapters.Adapter.set_sessions_not_before`."""
        _require({"key": key}, "a revocation", "key")
        mark, until = utc(not_before, "not_before"), optional_utc(expires, "expires")
        await self._run(self._store.set_sessions_not_before, key, mark, until)

    async def get_sessions_not_before(self, keys: list[str]) -> datetime | None:
        """See :meth:`sansio_auth.adapters.Adapter.get_sessions_not_before`."""
        if not keys:
            return None
        return await self._run(self._store.get_sessions_not_before, list(keys))

    async def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        """See :class:`sansio_auth.adapters.Counters`."""
        return await self._run(self._store.increment_counter, *normal_counter(key, window, now))
