"""The adapter suite's cases for the hardening an adapter takes part in (beyond Auth.js): the
rate-limit counters (``increment_counter``), sessions that keep their provider session
(``sid``, ``delete_sessions_by_sid``), and "not before" marks made with their expiry."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ._adapter_kit import NOW, AdapterCases, Records, call, race

MS = timedelta(milliseconds=1)


def _close(found: Any, expected: Any) -> bool:
    return found is not None and abs(found - expected) < MS


class HardeningCases(AdapterCases):
    """Counters, provider sessions and expiring marks."""

    # rate-limit counters

    async def test_a_counter_counts_within_its_window(self, adapter: Any) -> None:
        self.need(adapter, "increment_counter")
        count, reset_at = await call(adapter, "increment_counter", "k", 60, NOW)
        assert count == 1
        assert _close(reset_at, NOW + timedelta(seconds=60))
        assert reset_at.utcoffset() == timedelta(0)
        for n in range(2, 6):
            later = NOW + timedelta(seconds=n)
            count, again = await call(adapter, "increment_counter", "k", 60, later)
            assert count == n
            assert _close(again, reset_at)  # the window does not slide

    async def test_a_counter_starts_again_once_its_window_has_passed(self, adapter: Any) -> None:
        self.need(adapter, "increment_counter")
        await call(adapter, "increment_counter", "k", 60, NOW)
        await call(adapter, "increment_counter", "k", 60, NOW)
        later = NOW + timedelta(seconds=60)  # reset_at itself: a new window
        count, reset_at = await call(adapter, "increment_counter", "k", 30, later)
        assert count == 1
        assert _close(reset_at, later + timedelta(seconds=30))

    async def test_counters_are_independent(self, adapter: Any) -> None:
        self.need(adapter, "increment_counter")
        for _ in range(3):
            await call(adapter, "increment_counter", "rl:a", 60, NOW)
        assert (await call(adapter, "increment_counter", "rl:b", 60, NOW))[0] == 1
        assert (await call(adapter, "increment_counter", "rl:a", 60, NOW))[0] == 4

    async def test_concurrent_increments_each_get_their_own_count(self, adapter: Any) -> None:
        self.need(adapter, "increment_counter")
        results = await race(12, lambda i: call(adapter, "increment_counter", "race", 60, NOW))
        assert sorted(count for count, _ in results) == list(range(1, 13)), results

    # provider sessions

    async def test_a_session_keeps_its_sid(self, adapter: Any, new: Records) -> None:
        user = await self.user(adapter, new)
        session = new.session(user["id"], sid="op:idp:s-1")
        created = await call(adapter, "create_session", session)
        assert created["sid"] == "op:idp:s-1"
        found = await call(adapter, "get_session_and_user", session["session_token"])
        assert found["session"]["sid"] == "op:idp:s-1"
        later = NOW + timedelta(days=20)
        changes = {"session_token": session["session_token"], "expires": later}
        assert (await call(adapter, "update_session", changes))["sid"] == "op:idp:s-1"
        plain = await call(adapter, "create_session", new.session(user["id"]))
        assert plain.get("sid") is None  # no provider session: no sid (or None)

    async def test_delete_sessions_by_sid_ends_exactly_those(
        self, adapter: Any, new: Records
    ) -> None:
        self.need(adapter, "delete_sessions_by_sid")
        user = await self.user(adapter, new)
        ended = [new.session(user["id"], sid="op:idp:s-1") for _ in "ab"]
        kept = [new.session(user["id"], sid="op:idp:s-2"), new.session(user["id"])]
        for session in (*ended, *kept):
            await call(adapter, "create_session", session)
        assert await call(adapter, "delete_sessions_by_sid", "op:idp:s-1") == 2
        for session in ended:
            assert await call(adapter, "get_session_and_user", session["session_token"]) is None
        for session in kept:
            assert await call(adapter, "get_session_and_user", session["session_token"])
        assert await call(adapter, "delete_sessions_by_sid", "op:idp:s-1") == 0
        await call(adapter, "delete_session", kept[0]["session_token"])
        assert await call(adapter, "delete_sessions_by_sid", "op:idp:s-2") == 0  # gone already

    # marks with their expiry (the engine always gives it)

    async def test_marks_with_an_expiry(self, adapter: Any) -> None:
        self.need(adapter, "set_sessions_not_before", "get_sessions_not_before")
        hour = timedelta(hours=1)
        mark, get = "set_sessions_not_before", "get_sessions_not_before"
        await call(adapter, mark, "user:a", NOW, NOW + 3 * hour)
        await call(adapter, mark, "user:a", NOW + hour, NOW + 2 * hour)  # later, expiring sooner
        await call(adapter, mark, "user:a", NOW - hour, NOW + 9 * hour)  # earlier: ignored
        await call(adapter, mark, "user:kept", NOW, None)  # kept for good
        assert _close(await call(adapter, get, ["user:a"]), NOW + hour)
        assert _close(await call(adapter, get, ["user:kept"]), NOW)
        # a later mark, while "user:a" may still cover valid sessions: it is kept
        await call(adapter, mark, "user:b", NOW + 2 * hour, NOW + 4 * hour)
        assert _close(await call(adapter, get, ["user:a", "user:b"]), NOW + 2 * hour)
        assert _close(await call(adapter, get, ["user:a"]), NOW + hour)
