"""What the adapters of ``io_bindings.db`` do with the methods of issue 21 beyond what the
public suite asks (``io_bindings.testing.adapter_suite``, which they all pass): the counters'
protocol and argument checks, and marks forgotten once a later mark finds them expired."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from io_bindings.db._base import StoreAdapter
from io_bindings.testing.adapter_suite import NOW
from sansio_auth.adapters import Counters

pytestmark = pytest.mark.anyio

FORGET_BY_TTL = {"redis"}  # Redis forgets a mark by its key's TTL (see test_redis.py)


def test_every_adapter_keeps_counters(make_adapter: Callable[[], StoreAdapter]) -> None:
    assert isinstance(make_adapter(), Counters)


async def test_counter_arguments_are_checked(adapter: StoreAdapter) -> None:
    with pytest.raises(ValueError, match="window"):
        await adapter.increment_counter("k", 0, NOW)
    with pytest.raises(ValueError, match="needs key"):
        await adapter.increment_counter("", 60, NOW)
    with pytest.raises(ValueError, match="timezone-aware"):
        await adapter.increment_counter("k", 60, NOW.replace(tzinfo=None))


async def test_expired_marks_are_forgotten_by_a_later_mark(
    adapter: StoreAdapter, adapter_kind: str
) -> None:
    if adapter_kind in FORGET_BY_TTL:
        pytest.skip("forgotten by TTL, on the store's own clock")
    hour = timedelta(hours=1)
    await adapter.set_sessions_not_before("user:a", NOW, NOW + hour)
    await adapter.set_sessions_not_before("user:kept", NOW, None)
    # a mark made once "user:a"'s has expired (the engine's now is its not_before)
    await adapter.set_sessions_not_before("user:b", NOW + hour, NOW + 2 * hour)
    assert await adapter.get_sessions_not_before(["user:a"]) is None
    assert await adapter.get_sessions_not_before(["user:kept"]) is not None
    assert await adapter.get_sessions_not_before(["user:b"]) is not None
