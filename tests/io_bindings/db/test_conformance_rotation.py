"""The adapter methods of refresh-token rotation and revocable sessions, on every adapter
(asyncio and trio): accounts by user, the token compare-and-swap (exactly one winner of a
race), deleting a user's sessions, and the "not before" marks."""

from __future__ import annotations

from datetime import timedelta

import anyio
import pytest

from io_bindings.db._base import StoreAdapter
from tests.io_bindings.db.test_conformance import NOW, a_session, a_user, an_account

pytestmark = pytest.mark.anyio


async def test_list_accounts_by_user_id(adapter: StoreAdapter) -> None:
    alice = await adapter.create_user(a_user())
    bob = await adapter.create_user(a_user())
    first = await adapter.link_account(an_account(alice["id"]))
    second = await adapter.link_account(an_account(alice["id"], provider="op"))
    await adapter.link_account(an_account(bob["id"]))
    found = await adapter.list_accounts_by_user_id(alice["id"])
    assert sorted((a["provider"], a["provider_account_id"]) for a in found) == sorted(
        (a["provider"], a["provider_account_id"]) for a in (first, second)
    )
    assert {a["refresh_token"] for a in found} == {first["refresh_token"], second["refresh_token"]}
    assert await adapter.list_accounts_by_user_id("no-such-user") == []


async def test_update_account_tokens_is_a_compare_and_swap(adapter: StoreAdapter) -> None:
    user = await adapter.create_user(a_user())
    account = await adapter.link_account(an_account(user["id"]))
    key = (account["provider"], account["provider_account_id"])
    new = {"access_token": "at-2", "refresh_token": "rt-2", "expires_at": 1_900_000_000}
    assert await adapter.update_account_tokens(*key, "not-the-token", new) is None
    assert await adapter.get_account(*key) == account  # unchanged
    updated = await adapter.update_account_tokens(*key, account["refresh_token"], new)
    assert updated is not None
    assert {k: updated[k] for k in new} == new
    assert updated["id_token"] == account["id_token"]  # keys not given stay
    stored = await adapter.get_account(*key)
    assert stored is not None
    assert {k: stored[k] for k in new} == new
    assert await adapter.update_account_tokens(*key, account["refresh_token"], new) is None
    assert await adapter.update_account_tokens("op", "nobody", "rt-2", new) is None


async def test_update_account_tokens_matches_a_missing_refresh_token(adapter: StoreAdapter) -> None:
    user = await adapter.create_user(a_user())
    account = await adapter.link_account(an_account(user["id"], refresh_token=None))
    key = (account["provider"], account["provider_account_id"])
    updated = await adapter.update_account_tokens(*key, None, {"access_token": "at-2"})
    assert updated is not None
    assert updated["access_token"] == "at-2"


async def test_update_account_tokens_race_has_one_winner(adapter: StoreAdapter) -> None:
    user = await adapter.create_user(a_user())
    account = await adapter.link_account(an_account(user["id"]))
    key = (account["provider"], account["provider_account_id"])
    won: list[str] = []

    async def refresh(i: int) -> None:
        tokens = {"access_token": f"at-{i}", "refresh_token": f"rt-{i}"}
        if await adapter.update_account_tokens(*key, account["refresh_token"], tokens):
            won.append(f"rt-{i}")

    async with anyio.create_task_group() as group:
        for i in range(10):
            group.start_soon(refresh, i)
    assert len(won) == 1
    stored = await adapter.get_account(*key)
    assert stored is not None
    assert stored["refresh_token"] == won[0]


async def test_update_account_tokens_takes_token_keys_only(adapter: StoreAdapter) -> None:
    with pytest.raises(ValueError, match="token keys only"):
        await adapter.update_account_tokens("op", "x", None, {"user_id": "mallory"})  # type: ignore[typeddict-unknown-key]


async def test_delete_sessions_by_user_id(adapter: StoreAdapter) -> None:
    alice = await adapter.create_user(a_user())
    bob = await adapter.create_user(a_user())
    mine = [await adapter.create_session(a_session(alice["id"])) for _ in range(3)]
    theirs = await adapter.create_session(a_session(bob["id"]))
    assert await adapter.delete_sessions_by_user_id(alice["id"]) == 3
    for session in mine:
        assert await adapter.get_session_and_user(session["session_token"]) is None
    assert await adapter.get_session_and_user(theirs["session_token"]) is not None
    assert await adapter.delete_sessions_by_user_id(alice["id"]) == 0
    assert await adapter.delete_sessions_by_user_id("no-such-user") == 0


async def test_sessions_not_before_marks(adapter: StoreAdapter) -> None:
    later, earlier = NOW + timedelta(seconds=10), NOW - timedelta(seconds=10)
    assert await adapter.get_sessions_not_before(["user:a", "sid:s"]) is None
    assert await adapter.get_sessions_not_before([]) is None
    await adapter.set_sessions_not_before("user:a", NOW)
    await adapter.set_sessions_not_before("user:a", earlier)  # an earlier mark is ignored
    found = await adapter.get_sessions_not_before(["user:a"])
    assert found is not None
    assert abs(found - NOW) < timedelta(milliseconds=1)
    await adapter.set_sessions_not_before("sid:s", later)
    latest = await adapter.get_sessions_not_before(["user:a", "sid:s", "sid:other"])
    assert latest is not None
    assert abs(latest - later) < timedelta(milliseconds=1)
    assert latest.utcoffset() == timedelta(0)
    assert await adapter.get_sessions_not_before(["user:b"]) is None
