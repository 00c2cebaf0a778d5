"""A :class:`MemoryAdapter` that records its calls, fails on demand and can hide methods.

>>> db = FaultyAdapter(hide={"create_user_and_account"})   # the compensating sign-up path
>>> db.fail_on("link_account")                              # its next call raises
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from io_bindings.db.memory import MemoryAdapter, MemoryStore


class DatabaseDown(RuntimeError):
    """What a failing adapter method raises."""


class FaultyAdapter:
    """The in-memory adapter behind a proxy: ``calls``, ``fail_on``, ``before``, ``hide``."""

    def __init__(self, *, hide: Iterable[str] = ()) -> None:
        self.inner = MemoryAdapter()
        self.store: MemoryStore = self.inner.store
        self.hide = set(hide)
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.failures: dict[str, int] = {}
        self.hooks: dict[str, Callable[..., None]] = {}

    def fail_on(self, method: str, nth: int = 1) -> None:
        """The ``nth`` next call of ``method`` raises :class:`DatabaseDown`."""
        self.failures[method] = nth

    def before(self, method: str, hook: Callable[..., None]) -> None:
        """Run ``hook(*args)`` right before the next call of ``method`` (e.g. a racing writer)."""
        self.hooks[method] = hook

    def called(self, method: str) -> list[tuple[Any, ...]]:
        return [args for name, args in self.calls if name == method]

    def __getattr__(self, name: str) -> Any:
        if name in self.hide or name.startswith("_"):
            raise AttributeError(name)
        method = getattr(self.inner, name)

        def call(*args: Any) -> Any:
            self.calls.append((name, args))
            hook = self.hooks.pop(name, None)
            if hook is not None:
                hook(*args)
            if name in self.failures:
                self.failures[name] -= 1
                if self.failures[name] == 0:
                    del self.failures[name]
                    raise DatabaseDown(f"the database is down ({name})")
            return method(*args)

        return call


def utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def seed_user(store: MemoryStore, user_id: str, email: str, **fields: Any) -> dict[str, Any]:
    """A user stored directly (no engine involved)."""
    user = {"id": user_id, "email": email, "email_verified": None, "name": None, "image": None}
    user.update(fields)
    return store.create_user(user)


def seed_session(store: MemoryStore, token: str, user_id: str, expires: float) -> None:
    store.create_session({"session_token": token, "user_id": user_id, "expires": utc(expires)})


def rows(store: MemoryStore) -> tuple[int, int, int, int]:
    """How many users, accounts, sessions and verification tokens are stored."""
    return len(store.users), len(store.accounts), len(store.sessions), len(store.tokens)


def assert_consistent(store: MemoryStore) -> None:
    """Every account and session belongs to a stored user."""
    for account in store.accounts.values():
        assert account["user_id"] in store.users, account
    for session in store.sessions.values():
        assert session["user_id"] in store.users, session
