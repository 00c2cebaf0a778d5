"""The adapter suite's cases for a user's own sessions and accounts (ours, not Auth.js's):
sessions that keep their device, the user's sessions listed, JWT session records, and a
passkey account whose authenticators go when it is unlinked."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from sansio_auth.adapters import AdapterConflict

from ._adapter_kit import NOW, ONE_MONTH, ONE_WEEK, AdapterCases, Records, call

RECORDS = (
    "create_session_record",
    "touch_session_record",
    "list_session_records",
    "delete_session_record",
)
AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def record(new: Records, user_id: str, **extra: Any) -> dict[str, Any]:
    """A JWT session's record."""
    return {
        "sid": new.unique("sid"),
        "user_id": user_id,
        "expires": ONE_WEEK,
        "created_at": NOW,
        "last_seen_at": NOW,
        "user_agent": AGENT,
        "ip_address": "203.0.113.7",
        **extra,
    }


def _by(key: str) -> Any:
    return lambda found: found[key]


class OwnSessionCases(AdapterCases):
    """What the user's list of sessions and the security page's actions need of a store."""

    async def test_sessions_keep_their_device(self, adapter: Any, new: Records) -> None:
        self.need(adapter, "list_sessions_by_user_id")
        user = await self.user(adapter, new)
        later = NOW + timedelta(hours=1)
        device = {"created_at": NOW, "last_seen_at": NOW, "user_agent": AGENT}
        session = {**new.session(user["id"]), **device, "ip_address": "2001:db8::1"}
        await call(adapter, "create_session", session)
        found = await call(adapter, "get_session_and_user", session["session_token"])
        assert found["session"]["created_at"] == NOW  # freshness is counted from it
        extend = {"session_token": session["session_token"], "expires": ONE_MONTH}
        updated = await call(adapter, "update_session", {**extend, "last_seen_at": later})
        assert updated == {**session, "expires": ONE_MONTH, "last_seen_at": later}
        [listed] = await call(adapter, "list_sessions_by_user_id", user["id"])
        assert listed == updated
        assert listed["created_at"].utcoffset() == timedelta(0)

    async def test_list_sessions_by_user_id(self, adapter: Any, new: Records) -> None:
        self.need(adapter, "list_sessions_by_user_id")
        alice, bob = await self.user(adapter, new), await self.user(adapter, new)
        mine = [new.session(alice["id"]) for _ in range(3)]
        for session in [*mine, new.session(bob["id"])]:
            await call(adapter, "create_session", session)
        listed = await call(adapter, "list_sessions_by_user_id", alice["id"])
        assert sorted(listed, key=_by("session_token")) == sorted(mine, key=_by("session_token"))
        await call(adapter, "delete_session", mine[0]["session_token"])
        assert len(await call(adapter, "list_sessions_by_user_id", alice["id"])) == 2
        assert await call(adapter, "list_sessions_by_user_id", "no-such-user") == []

    async def test_session_records(self, adapter: Any, new: Records) -> None:
        self.need(adapter, *RECORDS)
        user = await self.user(adapter, new)
        first = record(new, user["id"])
        second = record(new, user["id"], user_agent=None, ip_address=None)
        other = record(new, "not-a-stored-user")  # a credentials sign-in's user
        for each in (first, second, other):
            await call(adapter, "create_session_record", each)
        with pytest.raises(AdapterConflict):
            await call(adapter, "create_session_record", first)
        listed = await call(adapter, "list_session_records", user["id"])
        bare = {k: v for k, v in second.items() if v is not None}
        assert sorted(listed, key=_by("sid")) == sorted([first, bare], key=_by("sid"))
        later = NOW + timedelta(hours=2)
        touched = await call(adapter, "touch_session_record", first["sid"], later, ONE_MONTH)
        assert touched == {**first, "last_seen_at": later, "expires": ONE_MONTH}
        assert await call(adapter, "touch_session_record", "no-such-sid", later, ONE_MONTH) is None
        assert await call(adapter, "delete_session_record", first["sid"]) == touched
        assert await call(adapter, "delete_session_record", first["sid"]) is None
        assert await call(adapter, "list_session_records", user["id"]) == [bare]
        assert await call(adapter, "list_session_records", "not-a-stored-user") == [other]
        assert await call(adapter, "list_session_records", "nobody") == []

    async def test_delete_user_forgets_the_session_records(
        self, adapter: Any, new: Records
    ) -> None:
        self.need(adapter, *RECORDS, "delete_user")
        user, other = await self.user(adapter, new), await self.user(adapter, new)
        await call(adapter, "create_session_record", record(new, user["id"]))
        kept = record(new, other["id"])
        await call(adapter, "create_session_record", kept)
        await call(adapter, "delete_user", user["id"])
        assert await call(adapter, "list_session_records", user["id"]) == []
        assert await call(adapter, "list_session_records", other["id"]) == [kept]

    async def test_unlinking_a_passkey_account_deletes_its_authenticator(
        self, adapter: Any, new: Records
    ) -> None:
        self.need(adapter, "unlink_account", "create_authenticator", "get_authenticator")
        user = await self.user(adapter, new)
        passkey = new.authenticator(user["id"])
        credential = passkey["credential_id"]
        account = {
            "user_id": user["id"],
            "type": "webauthn",
            "provider": "passkey",
            "provider_account_id": passkey["provider_account_id"],
        }
        await call(adapter, "link_account", account)
        await call(adapter, "create_authenticator", passkey)
        kept = new.authenticator(user["id"])  # another passkey's, not unlinked
        await call(adapter, "create_authenticator", kept)
        await call(adapter, "unlink_account", "passkey", account["provider_account_id"])
        assert await call(adapter, "get_authenticator", credential) is None
        assert await call(adapter, "get_authenticator", kept["credential_id"]) == kept
