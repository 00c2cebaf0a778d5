"""The kit of the adapter conformance suite (see :mod:`io_bindings.testing.adapter_suite`)."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import anyio
import pytest

NOW = datetime(2099, 6, 1, 12, 0, 0, 123456, tzinfo=UTC)
"""The suite's "now": far ahead, so that stores which expire keys (Redis) keep them."""
ONE_WEEK = NOW + timedelta(days=7)
ONE_MONTH = NOW + timedelta(days=30)
NO_SUCH_USER = "987654"


async def call(adapter: Any, method: str, *args: Any) -> Any:
    """``adapter.method(*args)``, awaited when it is a coroutine (sync adapters work too);
    the test is skipped, naming the method, when the adapter has no such method."""
    AdapterCases.need(adapter, method)
    result = getattr(adapter, method)(*args)
    return await result if inspect.isawaitable(result) else result


async def race(count: int, attempt: Callable[[int], Awaitable[Any]]) -> list[Any]:
    """``attempt(0)`` … ``attempt(count - 1)`` at once; their results, exceptions included
    (but a skip, which skips the test)."""
    results: list[Any] = []
    skipped: list[BaseException] = []

    async def one(i: int) -> None:
        try:
            results.append(await attempt(i))
        except pytest.skip.Exception as skip:
            skipped.append(skip)
        except Exception as err:  # the losers' errors: the tests check them
            results.append(err)

    async with anyio.create_task_group() as group:
        for i in range(count):
            group.start_soon(one, i)
    if skipped:
        raise skipped[0]
    return results


class Records:
    """Builders of test records; every one unique within a test."""

    def __init__(self) -> None:
        self.count = 0

    def unique(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}-{self.count}"

    def user(self, **extra: Any) -> dict[str, Any]:
        return {
            "id": self.unique("user"),
            "email": f"{self.unique('fill')}@example.com",
            "email_verified": NOW,
            "name": "Fill Murray",
            "image": "https://www.fillmurray.com/460/300",
            **extra,
        }

    def account(self, user_id: str, **extra: Any) -> dict[str, Any]:
        return {
            "user_id": user_id,
            "type": "oauth",
            "provider": "github",
            "provider_account_id": self.unique("account"),
            "access_token": self.unique("access"),
            "token_type": "bearer",
            "id_token": self.unique("id"),
            "refresh_token": self.unique("refresh"),
            "scope": "user",
            "expires_at": 2_592_000,
            "session_state": self.unique("state"),
            **extra,
        }

    def session(self, user_id: str, **extra: Any) -> dict[str, Any]:
        token = self.unique("session")
        return {"session_token": token, "user_id": user_id, "expires": ONE_WEEK, **extra}

    def token(self, identifier: str = "info@example.com") -> dict[str, Any]:
        hashed = hashlib.sha256(self.unique("anything").encode()).hexdigest()
        return {"identifier": identifier, "token": hashed, "expires": NOW + timedelta(minutes=15)}

    def authenticator(self, user_id: str, **extra: Any) -> dict[str, Any]:
        return {
            "credential_id": self.unique("credential"),
            "user_id": user_id,
            "provider_account_id": self.unique("passkey"),
            "credential_public_key": "pQECAyYgASFYIA",
            "counter": 0,
            "credential_device_type": "singleDevice",
            "credential_backed_up": False,
            "transports": "usb,nfc",
            **extra,
        }


class AdapterCases:
    """What the suite's test classes share: the fixtures and helpers."""

    pytestmark = pytest.mark.anyio
    keeps_custom_keys = False
    """Whether keys that are not standard are stored and given back (``role="admin"``)."""
    user_defaults: ClassVar[dict[str, Any]] = {}
    """What your adapter adds to a new user besides the keys given (extra columns' defaults)."""

    make_adapter: Callable[[], Any]
    """Makes the adapter under test, on an empty database."""

    @pytest.fixture
    async def adapter(self) -> AsyncIterator[Any]:
        """The adapter under test (``make_adapter()``; closed after the test if it can be)."""
        adapter = self.make_adapter()
        try:
            yield adapter
        finally:
            close = getattr(adapter, "aclose", None)
            if close is not None:
                await close()

    @pytest.fixture
    def new(self) -> Records:
        """This test's record builder."""
        return Records()

    @staticmethod
    def need(adapter: Any, *methods: str) -> None:
        """Skip the test unless ``adapter`` has every one of ``methods``."""
        missing = [m for m in methods if not callable(getattr(adapter, m, None))]
        if missing:
            pytest.skip(f"the adapter has no {', '.join(missing)}")

    async def user(self, adapter: Any, new: Records, **extra: Any) -> dict[str, Any]:
        """A new user, as the adapter stored it."""
        return dict(await call(adapter, "create_user", new.user(**extra)))
