"""An adapter that keeps everything in process memory: for tests and demos.

>>> from io_bindings.db.memory import MemoryAdapter
>>> config = AuthConfig(adapter=MemoryAdapter(), providers=[...])

Nothing survives the process. Every method runs without yielding to the event
loop, under one lock, so each is atomic. :class:`MemoryCounters` alone (the
rate-limit counters) is what the runtimes use when no store keeps counters.
"""

from __future__ import annotations

import copy
import heapq
import threading
from datetime import datetime, timedelta

from sansio_auth.adapters import AdapterConflict

from ._accounts import AccountMethods
from ._base import Record, StoreAdapter


def _copy(record: Record | None) -> Record | None:
    return None if record is None else copy.deepcopy(record)


class MemoryCounters:
    """Rate-limit counters in process memory (one process; see
    :class:`sansio_auth.adapters.Counters`): the runtimes' default when neither the
    configuration nor its adapter keeps counters. Thread-safe; a counter is forgotten once
    a later increment's ``now`` has passed its ``reset_at``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counters: dict[str, tuple[int, datetime]] = {}
        self._resets: list[tuple[datetime, str]] = []  # a heap: the next counter to forget first

    def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        """See :class:`sansio_auth.adapters.Counters`."""
        with self._lock:
            self._forget(now)
            count, reset_at = self._counters.get(key, (0, now))
            if reset_at <= now:
                count, reset_at = 0, now + timedelta(seconds=window)
                heapq.heappush(self._resets, (reset_at, key))
            self._counters[key] = (count + 1, reset_at)
            return count + 1, reset_at

    def _forget(self, now: datetime) -> None:
        while self._resets and self._resets[0][0] <= now:
            reset_at, key = heapq.heappop(self._resets)
            if self._counters.get(key, (0, None))[1] == reset_at:
                del self._counters[key]

    def __len__(self) -> int:
        """How many counters are kept."""
        return len(self._counters)


class MemoryStore:
    """The dictionaries behind :class:`MemoryAdapter`."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.users: dict[str, Record] = {}
        self.user_by_email: dict[str, str] = {}
        self.accounts: dict[tuple[str, str], Record] = {}
        self.sessions: dict[str, Record] = {}
        self.tokens: dict[tuple[str, str], Record] = {}
        self.authenticators: dict[str, Record] = {}
        self.not_before: dict[str, tuple[datetime, datetime | None]] = {}
        """Revocation marks: key → (not before, expires)."""
        self.counters = MemoryCounters()
        self.passwords: dict[str, str] = {}
        self.two_factors: dict[str, Record] = {}
        self.session_records: dict[str, Record] = {}

    def open(self) -> None:
        """Nothing to open."""

    def close(self) -> None:
        """Nothing to release (the data stays until the adapter is dropped)."""

    def _user(self, user_id: str) -> Record:
        user = self.users.get(user_id)
        if user is None:
            raise LookupError(f"no user with id {user_id!r}")
        return user

    def _claim_email(self, email: str | None, user_id: str) -> None:
        if email is None:
            return
        owner = self.user_by_email.get(email)
        if owner is not None and owner != user_id:
            raise AdapterConflict("a user with this e-mail address exists")
        self.user_by_email[email] = user_id

    def create_user(self, user: Record) -> Record:
        with self._lock:
            if user["id"] in self.users:
                raise AdapterConflict("a user with this id exists")
            self._claim_email(user["email"], user["id"])
            self.users[user["id"]] = copy.deepcopy(user)
            return copy.deepcopy(user)

    def get_user(self, user_id: str) -> Record | None:
        with self._lock:
            return _copy(self.users.get(user_id))

    def get_user_by_email(self, email: str) -> Record | None:
        with self._lock:
            user_id = self.user_by_email.get(email)
            return None if user_id is None else _copy(self.users[user_id])

    def get_user_by_account(self, provider: str, provider_account_id: str) -> Record | None:
        with self._lock:
            account = self.accounts.get((provider, provider_account_id))
            return None if account is None else _copy(self.users[account["user_id"]])

    def update_user(self, update: Record) -> Record:
        with self._lock:
            user = self._user(update["id"])
            if "email" in update and update["email"] != user["email"]:
                self._claim_email(update["email"], user["id"])
                if user["email"] is not None:
                    del self.user_by_email[user["email"]]
            user.update(copy.deepcopy(update))
            return copy.deepcopy(user)

    def delete_user(self, user_id: str) -> Record | None:
        with self._lock:
            user = self.users.pop(user_id, None)
            if user is None:
                return None
            if user["email"] is not None:
                del self.user_by_email[user["email"]]
            for pair in [k for k, v in self.accounts.items() if v["user_id"] == user_id]:
                del self.accounts[pair]
            for table in (self.sessions, self.authenticators, self.session_records):
                for key in [k for k, v in table.items() if v["user_id"] == user_id]:
                    del table[key]
            self.passwords.pop(user_id, None)
            self.two_factors.pop(user_id, None)
            return user

    def link_account(self, account: Record) -> Record:
        with self._lock:
            self._user(account["user_id"])
            key = (account["provider"], account["provider_account_id"])
            if key in self.accounts:
                raise AdapterConflict("this account is linked already")
            self.accounts[key] = copy.deepcopy(account)
            return copy.deepcopy(account)

    def unlink_account(self, provider: str, provider_account_id: str) -> Record | None:
        with self._lock:
            account = self.accounts.pop((provider, provider_account_id), None)
            if account is not None and account["type"] == "webauthn":
                for key, found in list(self.authenticators.items()):
                    if (found["user_id"], found["provider_account_id"]) == (
                        account["user_id"],
                        provider_account_id,
                    ):
                        del self.authenticators[key]
            return account

    def create_user_and_account(self, user: Record, account: Record) -> tuple[Record, Record]:
        with self._lock:
            if (account["provider"], account["provider_account_id"]) in self.accounts:
                raise AdapterConflict("this account is linked already")
            created = self.create_user(user)
            return created, self.link_account(account)

    def create_session(self, session: Record) -> Record:
        with self._lock:
            self._user(session["user_id"])
            if session["session_token"] in self.sessions:
                raise AdapterConflict("a session with this token exists")
            self.sessions[session["session_token"]] = dict(session)
            return dict(session)

    def get_session_and_user(self, session_token: str) -> tuple[Record, Record] | None:
        with self._lock:
            session = self.sessions.get(session_token)
            if session is None:
                return None
            return dict(session), copy.deepcopy(self.users[session["user_id"]])

    def update_session(self, update: Record) -> Record | None:
        with self._lock:
            session = self.sessions.get(update["session_token"])
            if session is None:
                return None
            if "user_id" in update:
                self._user(update["user_id"])
            session.update(update)
            return dict(session)

    def delete_session(self, session_token: str) -> Record | None:
        with self._lock:
            return self.sessions.pop(session_token, None)

    def create_verification_token(self, token: Record) -> Record:
        with self._lock:
            key = (token["identifier"], token["token"])
            if key in self.tokens:
                raise AdapterConflict("this verification token exists")
            self.tokens[key] = dict(token)
            return dict(token)

    def use_verification_token(self, identifier: str, token: str) -> Record | None:
        with self._lock:
            return self.tokens.pop((identifier, token), None)

    def get_account(self, provider: str, provider_account_id: str) -> Record | None:
        with self._lock:
            return _copy(self.accounts.get((provider, provider_account_id)))

    def get_authenticator(self, credential_id: str) -> Record | None:
        with self._lock:
            return _copy(self.authenticators.get(credential_id))

    def create_authenticator(self, authenticator: Record) -> Record:
        with self._lock:
            self._user(authenticator["user_id"])
            if authenticator["credential_id"] in self.authenticators:
                raise AdapterConflict("an authenticator with this credential id exists")
            self.authenticators[authenticator["credential_id"]] = dict(authenticator)
            return dict(authenticator)

    def list_authenticators_by_user_id(self, user_id: str) -> list[Record]:
        with self._lock:
            return [dict(a) for a in self.authenticators.values() if a["user_id"] == user_id]

    def update_authenticator_counter(self, credential_id: str, counter: int) -> Record:
        with self._lock:
            authenticator = self.authenticators.get(credential_id)
            if authenticator is None:
                raise LookupError(f"no authenticator with credential id {credential_id!r}")
            authenticator["counter"] = counter
            return dict(authenticator)

    def list_accounts_by_user_id(self, user_id: str) -> list[Record]:
        with self._lock:
            return [copy.deepcopy(a) for a in self.accounts.values() if a["user_id"] == user_id]

    def update_account_tokens(
        self, provider: str, provider_account_id: str, expected: str | None, tokens: Record
    ) -> Record | None:
        with self._lock:
            account = self.accounts.get((provider, provider_account_id))
            if account is None or account.get("refresh_token") != expected:
                return None
            account.update(tokens)
            return copy.deepcopy(account)

    def list_sessions_by_user_id(self, user_id: str) -> list[Record]:
        with self._lock:
            return [dict(s) for s in self.sessions.values() if s["user_id"] == user_id]

    def create_session_record(self, record: Record) -> Record:
        with self._lock:
            if record["sid"] in self.session_records:
                raise AdapterConflict("a session record with this sid exists")
            self.session_records[record["sid"]] = dict(record)
            return dict(record)

    def touch_session_record(
        self, sid: str, last_seen_at: datetime, expires: datetime
    ) -> Record | None:
        with self._lock:
            record = self.session_records.get(sid)
            if record is None:
                return None
            record.update(last_seen_at=last_seen_at, expires=expires)
            return dict(record)

    def list_session_records(self, user_id: str) -> list[Record]:
        with self._lock:
            return [dict(r) for r in self.session_records.values() if r["user_id"] == user_id]

    def delete_session_record(self, sid: str) -> Record | None:
        with self._lock:
            return self.session_records.pop(sid, None)

    def delete_sessions_by_user_id(self, user_id: str) -> int:
        with self._lock:
            tokens = [t for t, s in self.sessions.items() if s["user_id"] == user_id]
            for token in tokens:
                del self.sessions[token]
            return len(tokens)

    def delete_sessions_by_sid(self, sid: str) -> int:
        with self._lock:
            tokens = [t for t, s in self.sessions.items() if s.get("sid") == sid]
            for token in tokens:
                del self.sessions[token]
            return len(tokens)

    def set_sessions_not_before(
        self, key: str, not_before: datetime, expires: datetime | None
    ) -> None:
        with self._lock:
            marks = self.not_before
            for stale in [k for k, (_, until) in marks.items() if _passed(until, not_before)]:
                del marks[stale]
            mark, until = self.not_before.get(key, (not_before, expires))
            keep = None if until is None or expires is None else max(until, expires)
            self.not_before[key] = (max(mark, not_before), keep)

    def get_sessions_not_before(self, keys: list[str]) -> datetime | None:
        with self._lock:
            marks = [self.not_before[k][0] for k in keys if k in self.not_before]
            return max(marks, default=None)

    def increment_counter(self, key: str, window: int, now: datetime) -> tuple[int, datetime]:
        return self.counters.increment_counter(key, window, now)

    def get_password_hash(self, user_id: str) -> str | None:
        with self._lock:
            return self.passwords.get(user_id)

    def set_password_hash(self, user_id: str, password_hash: str | None) -> None:
        with self._lock:
            self._user(user_id)
            if password_hash is None:
                self.passwords.pop(user_id, None)
            else:
                self.passwords[user_id] = password_hash

    def get_two_factor(self, user_id: str) -> Record | None:
        with self._lock:
            return _copy(self.two_factors.get(user_id))

    def set_two_factor(self, record: Record) -> Record:
        with self._lock:
            self._user(record["user_id"])
            self.two_factors[record["user_id"]] = copy.deepcopy(record)
            return copy.deepcopy(record)

    def delete_two_factor(self, user_id: str) -> Record | None:
        with self._lock:
            return self.two_factors.pop(user_id, None)

    def use_totp_step(self, user_id: str, step: int) -> bool:
        with self._lock:
            record = self.two_factors.get(user_id)
            last = None if record is None else record["totp_last_step"]
            if record is None or (last is not None and last >= step):
                return False
            record["totp_last_step"] = step
            return True

    def use_recovery_code(self, user_id: str, code_hash: str) -> bool:
        with self._lock:
            record = self.two_factors.get(user_id)
            if record is None or code_hash not in record["recovery_codes"]:
                return False
            record["recovery_codes"].remove(code_hash)
            return True


def _passed(expires: datetime | None, now: datetime) -> bool:
    return expires is not None and expires <= now


class MemoryAdapter(AccountMethods, StoreAdapter):
    """The in-memory adapter (``AuthConfig(adapter=MemoryAdapter())``)."""

    def __init__(self) -> None:
        self.store = MemoryStore()
        super().__init__(self.store, threaded=False)
