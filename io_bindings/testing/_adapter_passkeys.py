"""The adapter suite's cases for passkeys, refresh-token rotation and revocable sessions."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from sansio_auth.adapters import AdapterConflict

from ._adapter_kit import NO_SUCH_USER, NOW, AdapterCases, Records, call, race

PASSKEYS = (
    "create_authenticator",
    "get_authenticator",
    "list_authenticators_by_user_id",
    "update_authenticator_counter",
)


def close_to(found: datetime | None, expected: datetime) -> bool:
    """A "not before" mark as stored: to the millisecond at least (Redis keeps milliseconds)."""
    return found is not None and abs(found - expected) < timedelta(milliseconds=1)


class MoreCases(AdapterCases):
    """Passkeys (Auth.js's), and the methods of rotation and revocation (ours)."""

    # authenticators (passkeys)

    async def test_authenticators(self, adapter: Any, new: Records) -> None:
        self.need(adapter, *PASSKEYS)
        user = await self.user(adapter, new)
        assert await call(adapter, "list_authenticators_by_user_id", user["id"]) == []
        first = new.authenticator(user["id"])
        second = new.authenticator(user["id"], transports=None)
        assert await call(adapter, "create_authenticator", first) == first
        await call(adapter, "create_authenticator", second)
        assert await call(adapter, "get_authenticator", first["credential_id"]) == first
        assert await call(adapter, "get_authenticator", "unknown") is None
        listed = await call(adapter, "list_authenticators_by_user_id", user["id"])
        by_id: Callable[[dict[str, Any]], str] = lambda a: a["credential_id"]  # noqa: E731
        assert sorted(listed, key=by_id) == sorted([first, second], key=by_id)
        updated = await call(adapter, "update_authenticator_counter", first["credential_id"], 7)
        assert updated == {**first, "counter": 7}
        assert await call(adapter, "get_authenticator", first["credential_id"]) == updated
        with pytest.raises(LookupError):
            await call(adapter, "update_authenticator_counter", "unknown", 1)
        with pytest.raises(AdapterConflict):
            await call(adapter, "create_authenticator", first)
        with pytest.raises(LookupError):
            await call(adapter, "create_authenticator", new.authenticator(NO_SUCH_USER))

    async def test_authenticators_as_webauthn_stores_them(self, adapter: Any, new: Records) -> None:
        """Standard base64 ids and keys (``+``, ``/``, ``=``), uint32 counters, per-user lists."""
        self.need(adapter, *PASSKEYS, "delete_user")
        ann, bob = await self.user(adapter, new), await self.user(adapter, new)
        credential_id = "+/8AAQ+/v7+/==" + new.unique("id")
        anns = new.authenticator(
            ann["id"],
            credential_id=credential_id,
            provider_account_id=credential_id,
            credential_public_key="pQECAyYgASFYIOm+Y57Ef3YY4GQtCmom0TPjaAdHX8mwHmIFVjRKmZTO",
            credential_device_type="multiDevice",
            credential_backed_up=True,
            transports="internal,hybrid",
        )
        bobs = new.authenticator(bob["id"], transports=None)
        await call(adapter, "create_authenticator", anns)
        await call(adapter, "create_authenticator", bobs)
        assert await call(adapter, "get_authenticator", credential_id) == anns
        assert await call(adapter, "list_authenticators_by_user_id", ann["id"]) == [anns]
        assert await call(adapter, "list_authenticators_by_user_id", bob["id"]) == [bobs]
        top = 2**32 - 1
        updated = await call(adapter, "update_authenticator_counter", credential_id, top)
        assert updated == {**anns, "counter": top}
        assert (await call(adapter, "get_authenticator", credential_id))["counter"] == top
        assert await call(adapter, "get_authenticator", bobs["credential_id"]) == bobs
        await call(adapter, "delete_user", ann["id"])
        assert await call(adapter, "get_authenticator", credential_id) is None
        assert await call(adapter, "get_authenticator", bobs["credential_id"]) == bobs

    async def test_concurrent_counter_updates_all_land(self, adapter: Any, new: Records) -> None:
        self.need(adapter, *PASSKEYS)
        user = await self.user(adapter, new)
        authenticator = new.authenticator(user["id"])
        await call(adapter, "create_authenticator", authenticator)
        credential = authenticator["credential_id"]
        results = await race(
            8, lambda i: call(adapter, "update_authenticator_counter", credential, i + 1)
        )
        assert all(isinstance(r, dict) for r in results), results
        final = await call(adapter, "get_authenticator", credential)
        assert final["counter"] in {r["counter"] for r in results}
        assert {**final, "counter": 0} == authenticator

    async def test_an_authenticator_race_on_one_credential_has_one_winner(
        self, adapter: Any, new: Records
    ) -> None:
        self.need(adapter, *PASSKEYS)
        user = await self.user(adapter, new)
        authenticator = new.authenticator(user["id"])
        results = await race(5, lambda _: call(adapter, "create_authenticator", authenticator))
        assert sum(isinstance(r, dict) for r in results) == 1, results
        assert all(isinstance(r, AdapterConflict) for r in results if not isinstance(r, dict))
        listed = await call(adapter, "list_authenticators_by_user_id", user["id"])
        assert listed == [authenticator]

    # refresh-token rotation

    async def test_list_accounts_by_user_id(self, adapter: Any, new: Records) -> None:
        self.need(adapter, "list_accounts_by_user_id")
        alice, bob = await self.user(adapter, new), await self.user(adapter, new)
        first = await call(adapter, "link_account", new.account(alice["id"]))
        second = await call(adapter, "link_account", new.account(alice["id"], provider="op"))
        await call(adapter, "link_account", new.account(bob["id"]))
        found = await call(adapter, "list_accounts_by_user_id", alice["id"])
        key: Callable[[dict[str, Any]], tuple[str, str]] = lambda a: (  # noqa: E731
            a["provider"],
            a["provider_account_id"],
        )
        assert sorted(found, key=key) == sorted([first, second], key=key)
        assert await call(adapter, "list_accounts_by_user_id", "no-such-user") == []
        assert await call(adapter, "list_accounts_by_user_id", NO_SUCH_USER) == []

    async def _account_for_tokens(
        self, adapter: Any, new: Records
    ) -> tuple[dict[str, Any], tuple[str, str]]:
        """A linked account whose tokens the case updates, and its key."""
        self.need(adapter, "update_account_tokens", "get_account")
        user = await self.user(adapter, new)
        account = await call(adapter, "link_account", new.account(user["id"]))
        return account, (account["provider"], account["provider_account_id"])

    async def test_update_account_tokens_is_a_compare_and_swap(
        self, adapter: Any, new: Records
    ) -> None:
        account, key = await self._account_for_tokens(adapter, new)
        tokens = {"access_token": "at-2", "refresh_token": "rt-2", "expires_at": 1_900_000_000}
        cas = "update_account_tokens"
        assert await call(adapter, cas, *key, "not-the-token", tokens) is None
        assert await call(adapter, "get_account", *key) == account  # unchanged
        updated = await call(adapter, cas, *key, account["refresh_token"], tokens)
        assert updated == {**account, **tokens}  # keys not given stay
        assert await call(adapter, "get_account", *key) == updated
        assert await call(adapter, cas, *key, account["refresh_token"], tokens) is None
        assert await call(adapter, cas, "op", "nobody", "rt-2", tokens) is None
        tokenless = new.account(account["user_id"], refresh_token=None)
        none = await call(adapter, "link_account", tokenless)
        key = (none["provider"], none["provider_account_id"])
        updated = await call(adapter, cas, *key, None, {"access_token": "at-3"})
        assert updated == {**none, "access_token": "at-3"}
        with pytest.raises(ValueError, match="token keys only"):
            await call(adapter, cas, *key, None, {"user_id": "mallory"})

    async def test_update_account_tokens_race_has_one_winner(
        self, adapter: Any, new: Records
    ) -> None:
        account, key = await self._account_for_tokens(adapter, new)

        async def refresh(i: int) -> Any:
            tokens = {"access_token": f"at-{i}", "refresh_token": f"rt-{i}"}
            return await call(
                adapter, "update_account_tokens", *key, account["refresh_token"], tokens
            )

        won = [r for r in await race(10, refresh) if r is not None]
        assert len(won) == 1, won
        assert (await call(adapter, "get_account", *key))["refresh_token"] == won[0][
            "refresh_token"
        ]

    # revocable sessions

    async def test_delete_sessions_by_user_id(self, adapter: Any, new: Records) -> None:
        self.need(adapter, "delete_sessions_by_user_id")
        alice, bob = await self.user(adapter, new), await self.user(adapter, new)
        mine = [new.session(alice["id"]) for _ in range(3)]
        for session in mine:
            await call(adapter, "create_session", session)
        theirs = new.session(bob["id"])
        await call(adapter, "create_session", theirs)
        assert await call(adapter, "delete_sessions_by_user_id", alice["id"]) == 3
        for session in mine:
            assert await call(adapter, "get_session_and_user", session["session_token"]) is None
        assert await call(adapter, "get_session_and_user", theirs["session_token"]) is not None
        assert await call(adapter, "delete_sessions_by_user_id", alice["id"]) == 0
        assert await call(adapter, "delete_sessions_by_user_id", "no-such-user") == 0

    async def test_sessions_not_before_marks(self, adapter: Any) -> None:
        self.need(adapter, "set_sessions_not_before", "get_sessions_not_before")
        later, earlier = NOW + timedelta(seconds=10), NOW - timedelta(seconds=10)
        get, mark = "get_sessions_not_before", "set_sessions_not_before"
        assert await call(adapter, get, ["user:a", "sid:s"]) is None
        assert await call(adapter, get, []) is None
        await call(adapter, mark, "user:a", NOW)
        await call(adapter, mark, "user:a", earlier)  # an earlier mark is ignored
        assert close_to(await call(adapter, get, ["user:a"]), NOW)
        await call(adapter, mark, "sid:s", later)
        latest = await call(adapter, get, ["user:a", "sid:s", "sid:other"])
        assert close_to(latest, later)
        assert latest.utcoffset() == timedelta(0)
        assert await call(adapter, get, ["user:b"]) is None

    async def test_racing_first_marks_of_one_key_keep_the_latest(self, adapter: Any) -> None:
        self.need(adapter, "set_sessions_not_before", "get_sessions_not_before")
        marks = [NOW + timedelta(seconds=i) for i in range(6)]
        results = await race(
            6, lambda i: call(adapter, "set_sessions_not_before", "user:r", marks[i])
        )
        assert results == [None] * 6, results
        found = await call(adapter, "get_sessions_not_before", ["user:r"])
        assert close_to(found, marks[-1]), (found, marks[-1])
