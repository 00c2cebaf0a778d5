"""The async driver performs ``CallAdapter`` actions on these adapters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from io_bindings.db._base import StoreAdapter
from sansio_auth.adapters import AdapterConflict
from sansio_auth.drivers import async_performer
from sansio_auth.events import AdapterReturned, CallAdapter, Failed

pytestmark = pytest.mark.anyio


async def test_adapter_calls_are_actions(adapter: StoreAdapter) -> None:
    perform = async_performer(log=print)

    async def call(method: str, *args: Any) -> Any:
        action = CallAdapter(method=method, function=getattr(adapter, method), args=args)
        return await perform(action)

    user = {"id": "", "email": "a@b.c", "email_verified": None}
    created = await call("create_user", user)
    assert isinstance(created, AdapterReturned)
    assert created.value["email"] == "a@b.c"
    conflict = await call("create_user", user)
    assert isinstance(conflict, Failed)
    assert isinstance(conflict.error, AdapterConflict)
    token = {"identifier": "a@b.c", "token": "t", "expires": datetime.now(UTC) + timedelta(1)}
    assert await call("create_verification_token", token) == AdapterReturned(value=token)
    assert await call("use_verification_token", "a@b.c", "t") == AdapterReturned(value=token)
    assert await call("use_verification_token", "a@b.c", "t") == AdapterReturned(value=None)
