"""The adapter methods of issue 21 on every adapter (asyncio and trio): rate-limit counters,
sessions that keep their provider session (``sid``), and "not before" marks that expire."""

from __future__ import annotations

from datetime import timedelta

import anyio
import pytest

from io_bindings.db._base import StoreAdapter
from sansio_auth.adapters import Counters
from tests.io_bindings.db.test_conformance import NOW, a_session, a_user

pytestmark = pytest.mark.anyio

MS = timedelta(milliseconds=1)


def test_every_adapter_keeps_counters(adapter_kind: str, make_adapter: object) -> None:
    assert isinstance(make_adapter(), Counters)  # type: ignore[operator]


async def test_a_counter_counts_within_its_window(adapter: StoreAdapter) -> None:
    first = await adapter.increment_counter("k", 60, NOW)
    assert first[0] == 1
    assert abs(first[1] - (NOW + timedelta(seconds=60))) < MS
    assert first[1].utcoffset() == timedelta(0)
    for n in range(2, 6):
        count, reset_at = await adapter.increment_counter("k", 60, NOW + timedelta(seconds=n))
        assert count == n
        assert abs(reset_at - first[1]) < MS  # the window does not slide


async def test_a_counter_starts_again_once_its_window_has_passed(adapter: StoreAdapter) -> None:
    await adapter.increment_counter("k", 60, NOW)
    await adapter.increment_counter("k", 60, NOW)
    later = NOW + timedelta(seconds=60)  # reset_at itself: a new window
    count, reset_at = await adapter.increment_counter("k", 30, later)
    assert count == 1
    assert abs(reset_at - (later + timedelta(seconds=30))) < MS


async def test_counters_are_independent(adapter: StoreAdapter) -> None:
    for _ in range(3):
        await adapter.increment_counter("a", 60, NOW)
    assert (await adapter.increment_counter("b", 60, NOW))[0] == 1
    assert (await adapter.increment_counter("a", 60, NOW))[0] == 4


async def test_concurrent_increments_each_get_their_own_count(adapter: StoreAdapter) -> None:
    counts: list[int] = []

    async def one() -> None:
        counts.append((await adapter.increment_counter("race", 60, NOW))[0])

    async with anyio.create_task_group() as group:
        for _ in range(20):
            group.start_soon(one)
    assert sorted(counts) == list(range(1, 21))


async def test_counter_arguments_are_checked(adapter: StoreAdapter) -> None:
    with pytest.raises(ValueError, match="window"):
        await adapter.increment_counter("k", 0, NOW)
    with pytest.raises(ValueError, match="needs key"):
        await adapter.increment_counter("", 60, NOW)
    with pytest.raises(ValueError, match="timezone-aware"):
        await adapter.increment_counter("k", 60, NOW.replace(tzinfo=None))


async def test_a_session_keeps_its_sid(adapter: StoreAdapter) -> None:
    user = await adapter.create_user(a_user())
    session = a_session(user["id"], sid="op:idp:s-1")
    created = await adapter.create_session(session)  # type: ignore[arg-type]
    assert created["sid"] == "op:idp:s-1"  # type: ignore[typeddict-item]
    found = await adapter.get_session_and_user(session["session_token"])
    assert found is not None
    assert found["session"]["sid"] == "op:idp:s-1"  # type: ignore[typeddict-item]
    later = NOW + timedelta(days=20)
    updated = await adapter.update_session(
        {"session_token": session["session_token"], "expires": later}
    )
    assert updated is not None
    assert updated["sid"] == "op:idp:s-1"  # type: ignore[typeddict-item]
    plain = await adapter.create_session(a_session(user["id"]))
    assert "sid" not in plain  # a session without a provider session has no sid key


async def test_delete_sessions_by_sid_ends_exactly_those(adapter: StoreAdapter) -> None:
    user = await adapter.create_user(a_user())
    ended = [await adapter.create_session(a_session(user["id"], sid="op:idp:s-1")) for _ in "ab"]
    other = await adapter.create_session(a_session(user["id"], sid="op:idp:s-2"))
    plain = await adapter.create_session(a_session(user["id"]))
    assert await adapter.delete_sessions_by_sid("op:idp:s-1") == 2
    for session in ended:
        assert await adapter.get_session_and_user(session["session_token"]) is None
    for session in (other, plain):
        assert await adapter.get_session_and_user(session["session_token"]) is not None
    assert await adapter.delete_sessions_by_sid("op:idp:s-1") == 0
    await adapter.delete_session(other["session_token"])
    assert await adapter.delete_sessions_by_sid("op:idp:s-2") == 0  # gone already


async def test_expired_marks_are_forgotten_by_a_later_mark(adapter: StoreAdapter) -> None:
    hour = timedelta(hours=1)
    await adapter.set_sessions_not_before("user:a", NOW, NOW + hour)
    await adapter.set_sessions_not_before("user:kept", NOW, None)
    assert await adapter.get_sessions_not_before(["user:a"]) is not None
    # A mark made once "user:a"'s has expired (the engine's now is its not_before).
    await adapter.set_sessions_not_before("user:b", NOW + hour, NOW + 2 * hour)
    if adapter_forgets_by_ttl(adapter):
        pytest.skip("Redis forgets marks by TTL, on its own clock (see the Redis tests)")
    assert await adapter.get_sessions_not_before(["user:a"]) is None
    assert await adapter.get_sessions_not_before(["user:kept"]) is not None
    assert await adapter.get_sessions_not_before(["user:b"]) is not None


async def test_a_later_mark_of_a_key_keeps_the_latest_expiry(adapter: StoreAdapter) -> None:
    hour = timedelta(hours=1)
    await adapter.set_sessions_not_before("user:a", NOW, NOW + 3 * hour)
    await adapter.set_sessions_not_before("user:a", NOW + hour, NOW + 2 * hour)
    await adapter.set_sessions_not_before("user:other", NOW + 2 * hour, None)
    mark = await adapter.get_sessions_not_before(["user:a"])
    assert mark is not None
    assert abs(mark - (NOW + hour)) < MS  # the later mark, the later expiry kept


def adapter_forgets_by_ttl(adapter: StoreAdapter) -> bool:
    return type(adapter).__name__ == "RedisAdapter"
