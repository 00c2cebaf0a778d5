"""The adapter suite's cases for users, accounts, sessions, verification tokens and races."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from sansio_auth.adapters import AdapterConflict

from ._adapter_kit import NO_SUCH_USER, NOW, ONE_MONTH, ONE_WEEK, AdapterCases, Records, call, race


class CoreCases(AdapterCases):
    """Auth.js's shared adapter tests and the races the engine relies on."""

    # users

    async def test_create_and_get_user(self, adapter: Any, new: Records) -> None:
        given = new.user()
        created = dict(await call(adapter, "create_user", given))
        assert isinstance(created["id"], str)
        assert created == {**self.user_defaults, **given, "id": created["id"]}
        assert await call(adapter, "get_user", created["id"]) == created
        assert await call(adapter, "get_user_by_email", given["email"]) == created
        assert await call(adapter, "get_user", "an-id-nobody-has") is None
        assert await call(adapter, "get_user", NO_SUCH_USER) is None
        assert await call(adapter, "get_user_by_email", "non-existent-email") is None
        assert await call(adapter, "get_user_by_email", given["email"].upper()) is None

    async def test_optional_user_fields_default_to_none(self, adapter: Any) -> None:
        created = await call(
            adapter, "create_user", {"id": "", "email": "a@b.c", "email_verified": None}
        )
        assert created["id"]
        assert created == {
            **self.user_defaults,
            "id": created["id"],
            "email": "a@b.c",
            "email_verified": None,
            "name": None,
            "image": None,
        }
        assert await call(adapter, "get_user", created["id"]) == created

    async def test_times_come_back_in_utc_and_naive_ones_are_refused(
        self, adapter: Any, new: Records
    ) -> None:
        plus_two = NOW.astimezone(timezone(timedelta(hours=2)))
        user = await self.user(adapter, new, email_verified=plus_two)
        stored = await call(adapter, "get_user", user["id"])
        assert stored["email_verified"] == NOW
        assert stored["email_verified"].utcoffset() == timedelta(0)
        minus_five = ONE_WEEK.astimezone(timezone(timedelta(hours=-5)))
        session = new.session(user["id"])
        await call(adapter, "create_session", {**session, "expires": minus_five})
        found = await call(adapter, "get_session_and_user", session["session_token"])
        assert found["session"]["expires"] == ONE_WEEK
        assert found["session"]["expires"].utcoffset() == timedelta(0)
        with pytest.raises(ValueError):  # noqa: PT011 - the message is the adapter's
            await call(adapter, "create_user", new.user(email_verified=datetime(2099, 1, 1)))
        with pytest.raises(ValueError):  # noqa: PT011
            await call(
                adapter,
                "create_session",
                new.session(user["id"]) | {"expires": datetime(2099, 1, 1)},
            )

    async def test_emails_are_unique_but_many_users_may_have_none(
        self, adapter: Any, new: Records
    ) -> None:
        user = await self.user(adapter, new)
        with pytest.raises(AdapterConflict):
            await call(adapter, "create_user", new.user(email=user["email"]))
        first = await call(adapter, "create_user", new.user(email=None))
        second = await call(adapter, "create_user", new.user(email=None))
        assert first["id"] != second["id"]
        assert await call(adapter, "get_user", second["id"]) == second

    async def test_update_user_changes_only_the_keys_given(
        self, adapter: Any, new: Records
    ) -> None:
        user = await self.user(adapter, new)
        updated = await call(adapter, "update_user", {"id": user["id"], "name": "Updated Name"})
        assert updated == {**user, "name": "Updated Name"}
        assert await call(adapter, "get_user", user["id"]) == updated
        later = NOW + timedelta(hours=1)
        changes = {"id": user["id"], "email_verified": later, "image": None}
        updated = await call(adapter, "update_user", changes)
        assert updated == {**user, "name": "Updated Name", "email_verified": later, "image": None}
        assert await call(adapter, "get_user", user["id"]) == updated

    async def test_update_user_moves_the_email_lookup(self, adapter: Any, new: Records) -> None:
        user, other = await self.user(adapter, new), await self.user(adapter, new)
        updated = await call(adapter, "update_user", {"id": user["id"], "email": "new@example.com"})
        assert await call(adapter, "get_user_by_email", "new@example.com") == updated
        assert await call(adapter, "get_user_by_email", user["email"]) is None
        with pytest.raises(AdapterConflict):
            await call(adapter, "update_user", {"id": user["id"], "email": other["email"]})
        assert await call(adapter, "get_user_by_email", "new@example.com") == updated
        with pytest.raises(LookupError):
            await call(adapter, "update_user", {"id": NO_SUCH_USER, "name": "nobody"})

    async def test_custom_keys_pass_through(self, adapter: Any, new: Records) -> None:
        if not self.keeps_custom_keys:
            pytest.skip("keeps_custom_keys is False")
        user = await self.user(adapter, new, role="admin", phone="00000000000")
        assert user["role"] == "admin"
        assert await call(adapter, "get_user", user["id"]) == user
        updated = await call(adapter, "update_user", {"id": user["id"], "role": "user"})
        assert updated == {**user, "role": "user"}
        account = new.account(user["id"], refresh_token_expires_in=15897600)
        await call(adapter, "link_account", account)
        assert await call(adapter, "get_account", "github", account["provider_account_id"]) == (
            account
        )

    # accounts

    async def test_link_account_with_every_token_field(self, adapter: Any, new: Records) -> None:
        user = await self.user(adapter, new)
        account = new.account(user["id"])
        pid = account["provider_account_id"]
        assert await call(adapter, "link_account", account) == account
        assert await call(adapter, "get_user_by_account", "github", pid) == user
        assert await call(adapter, "get_user_by_account", "invalid-provider", "invalid-id") is None
        assert await call(adapter, "get_user_by_account", "google", pid) is None
        if callable(getattr(adapter, "get_account", None)):
            assert await call(adapter, "get_account", "github", pid) == account
            assert await call(adapter, "get_account", "github", "invalid-id") is None

    async def test_token_fields_not_given_are_none(self, adapter: Any, new: Records) -> None:
        self.need(adapter, "get_account")
        user = await self.user(adapter, new)
        account = {
            "user_id": user["id"],
            "type": "oidc",
            "provider": "p",
            "provider_account_id": "1",
        }
        linked = await call(adapter, "link_account", account)
        expected = {**account, "scope": None, "expires_at": None, "session_state": None}
        expected |= dict.fromkeys(["access_token", "token_type", "id_token", "refresh_token"])
        assert linked == expected
        assert await call(adapter, "get_account", "p", "1") == expected

    async def test_an_account_links_once_and_only_to_a_user(
        self, adapter: Any, new: Records
    ) -> None:
        user, other = await self.user(adapter, new), await self.user(adapter, new)
        account = new.account(user["id"])
        await call(adapter, "link_account", account)
        with pytest.raises(AdapterConflict):
            await call(adapter, "link_account", {**account, "user_id": other["id"]})
        with pytest.raises(LookupError):
            await call(adapter, "link_account", new.account(NO_SUCH_USER))
        second = new.account(user["id"], provider="google")
        await call(adapter, "link_account", second)
        found = await call(adapter, "get_user_by_account", "google", second["provider_account_id"])
        assert found == user

    async def test_unlink_account(self, adapter: Any, new: Records) -> None:
        self.need(adapter, "unlink_account")
        user = await self.user(adapter, new)
        account = new.account(user["id"])
        pid = account["provider_account_id"]
        await call(adapter, "link_account", account)
        assert await call(adapter, "unlink_account", "github", pid) == account
        assert await call(adapter, "get_user_by_account", "github", pid) is None
        if callable(getattr(adapter, "get_account", None)):
            assert await call(adapter, "get_account", "github", pid) is None
        assert await call(adapter, "unlink_account", "github", pid) is None
        assert await call(adapter, "get_user", user["id"]) == user

    # sessions

    async def test_sessions(self, adapter: Any, new: Records) -> None:
        user = await self.user(adapter, new)
        session = new.session(user["id"])
        token = session["session_token"]
        assert await call(adapter, "create_session", session) == session
        found = await call(adapter, "get_session_and_user", token)
        assert found == {"session": session, "user": user}
        assert await call(adapter, "get_session_and_user", "invalid-token") is None
        longer = {"session_token": token, "expires": ONE_MONTH}
        updated = await call(adapter, "update_session", longer)
        assert updated == {**session, "expires": ONE_MONTH}
        found = await call(adapter, "get_session_and_user", token)
        assert found["session"]["expires"] == ONE_MONTH
        nope = {"session_token": "nope", "expires": ONE_MONTH}
        assert await call(adapter, "update_session", nope) is None
        assert await call(adapter, "delete_session", token) == updated
        assert await call(adapter, "get_session_and_user", token) is None
        assert await call(adapter, "delete_session", token) is None

    async def test_a_session_needs_a_user_and_a_fresh_token(
        self, adapter: Any, new: Records
    ) -> None:
        user = await self.user(adapter, new)
        with pytest.raises(LookupError):
            await call(adapter, "create_session", new.session(NO_SUCH_USER))
        session = new.session(user["id"])
        await call(adapter, "create_session", session)
        with pytest.raises(AdapterConflict):
            await call(adapter, "create_session", session)

    async def test_delete_user_cascades(self, adapter: Any, new: Records) -> None:
        self.need(adapter, "delete_user")
        user, other = await self.user(adapter, new), await self.user(adapter, new)
        accounts = [new.account(user["id"]), new.account(user["id"], provider="google")]
        sessions = [new.session(user["id"]), new.session(user["id"])]
        for account in accounts:
            await call(adapter, "link_account", account)
        for session in sessions:
            await call(adapter, "create_session", session)
        passkeys = callable(getattr(adapter, "create_authenticator", None))
        if passkeys:
            await call(adapter, "create_authenticator", new.authenticator(user["id"]))
        kept = new.session(other["id"])
        await call(adapter, "create_session", kept)

        assert await call(adapter, "delete_user", user["id"]) == user
        assert await call(adapter, "get_user", user["id"]) is None
        assert await call(adapter, "get_user_by_email", user["email"]) is None
        for account in accounts:
            key = (account["provider"], account["provider_account_id"])
            assert await call(adapter, "get_user_by_account", *key) is None
            if callable(getattr(adapter, "get_account", None)):
                assert await call(adapter, "get_account", *key) is None
        for session in sessions:
            assert await call(adapter, "get_session_and_user", session["session_token"]) is None
        if passkeys:
            assert await call(adapter, "list_authenticators_by_user_id", user["id"]) == []
        assert await call(adapter, "get_session_and_user", kept["session_token"]) is not None
        assert await call(adapter, "delete_user", user["id"]) is None
        again = await call(adapter, "create_user", new.user(email=user["email"]))
        assert await call(adapter, "get_user_by_email", user["email"]) == again

    async def test_a_deleted_users_id_is_never_given_again(
        self, adapter: Any, new: Records
    ) -> None:
        """What still names a deleted user (a session cookie's ``sub``, a revocation mark)
        must not name the next user: a counter that goes back after the newest user is
        deleted (SQLite's ``INTEGER PRIMARY KEY`` without ``AUTOINCREMENT``) fails here."""
        self.need(adapter, "delete_user")
        given = [(await self.user(adapter, new))["id"]]
        deleted = []
        for _ in range(3):
            newest = await self.user(adapter, new)
            given.append(newest["id"])
            assert await call(adapter, "delete_user", newest["id"]) == newest
            deleted.append(newest["id"])
        given.append((await self.user(adapter, new))["id"])
        if callable(getattr(adapter, "create_user_and_account", None)):
            made = await call(adapter, "create_user_and_account", new.user(), new.account(""))
            given.append(made["user"]["id"])
        assert len(set(given)) == len(given), f"ids given again: {given}"
        for user_id in deleted:
            assert await call(adapter, "get_user", user_id) is None

    # verification tokens

    async def test_verification_tokens_are_used_once(self, adapter: Any, new: Records) -> None:
        token = new.token()
        assert await call(adapter, "create_verification_token", token) == token
        used = (token["identifier"], token["token"])
        assert await call(adapter, "use_verification_token", *used) == token
        assert await call(adapter, "use_verification_token", *used) is None

    async def test_verification_tokens_match_identifier_and_token(
        self, adapter: Any, new: Records
    ) -> None:
        """CVE-2022-39263: a token for one address must not sign in another."""
        token = new.token("victim@example.com")
        await call(adapter, "create_verification_token", token)
        use = "use_verification_token"
        assert await call(adapter, use, "attacker@example.com", token["token"]) is None
        assert await call(adapter, use, "victim@example.com", "0" * 64) is None
        assert await call(adapter, use, "victim@example.com", token["token"]) == token

    async def test_one_address_may_hold_several_tokens(self, adapter: Any, new: Records) -> None:
        first, second = new.token(), new.token()
        await call(adapter, "create_verification_token", first)
        await call(adapter, "create_verification_token", second)
        with pytest.raises(AdapterConflict):
            await call(adapter, "create_verification_token", first)
        use = "use_verification_token"
        assert await call(adapter, use, second["identifier"], second["token"]) == second
        assert await call(adapter, use, first["identifier"], first["token"]) == first

    async def test_racing_uses_of_one_token_have_one_winner(
        self, adapter: Any, new: Records
    ) -> None:
        for _ in range(10):
            token = new.token()
            await call(adapter, "create_verification_token", token)
            key = (token["identifier"], token["token"])

            async def use(_: int, key: tuple[str, str] = key) -> Any:
                return await call(adapter, "use_verification_token", *key)

            results = await race(4, use)
            assert [r for r in results if r is not None] == [token]

    # what racing sign-ups rely on

    async def test_racing_sign_ups_with_one_email_make_one_user(
        self, adapter: Any, new: Records
    ) -> None:
        email = "race@example.com"
        users = [new.user(email=email) for _ in range(4)]
        results = await race(4, lambda i: call(adapter, "create_user", users[i]))
        winners = [r for r in results if isinstance(r, dict)]
        assert len(winners) == 1, results
        assert all(isinstance(r, AdapterConflict) for r in results if r not in winners), results
        assert await call(adapter, "get_user_by_email", email) == winners[0]

    async def test_racing_first_sign_ups_with_one_email_make_one_user_and_account(
        self, adapter: Any, new: Records
    ) -> None:
        """The engine's sign-up: each request a new user with its own first account."""
        self.need(adapter, "create_user_and_account")
        email = "first@example.com"
        attempts = [(new.user(email=email), new.account("")) for _ in range(4)]
        results = await race(4, lambda i: call(adapter, "create_user_and_account", *attempts[i]))
        winners = [r for r in results if isinstance(r, dict)]
        assert len(winners) == 1, results
        assert all(isinstance(r, AdapterConflict) for r in results if r not in winners), results
        user = await call(adapter, "get_user_by_email", email)
        assert user == winners[0]["user"]
        won = winners[0]["account"]["provider_account_id"]
        for _, account in attempts:
            pid = account["provider_account_id"]
            owner = await call(adapter, "get_user_by_account", "github", pid)
            assert owner == (user if pid == won else None)

    async def test_racing_links_of_one_account_have_one_winner(
        self, adapter: Any, new: Records
    ) -> None:
        users = [await self.user(adapter, new) for _ in range(4)]
        pid = new.unique("contested")
        accounts = [new.account(u["id"], provider_account_id=pid) for u in users]
        results = await race(4, lambda i: call(adapter, "link_account", accounts[i]))
        winners = [r for r in results if isinstance(r, dict)]
        assert len(winners) == 1, results
        assert all(isinstance(r, AdapterConflict) for r in results if r not in winners), results
        owner = await call(adapter, "get_user_by_account", "github", pid)
        assert owner["id"] == winners[0]["user_id"]

    async def test_create_user_and_account(self, adapter: Any, new: Records) -> None:
        self.need(adapter, "create_user_and_account")
        user, account = new.user(), new.account("ignored")
        created = await call(adapter, "create_user_and_account", user, account)
        made = created["user"]
        assert made == {**self.user_defaults, **user, "id": made["id"]}
        assert created["account"] == {**account, "user_id": made["id"]}
        found = await call(adapter, "get_user_by_account", "github", account["provider_account_id"])
        assert found == made

    async def test_create_user_and_account_is_all_or_nothing(
        self, adapter: Any, new: Records
    ) -> None:
        self.need(adapter, "create_user_and_account")
        owner = await self.user(adapter, new)
        taken = new.account(owner["id"])
        await call(adapter, "link_account", taken)
        user = new.user()
        with pytest.raises(AdapterConflict):
            await call(adapter, "create_user_and_account", user, taken)
        assert await call(adapter, "get_user_by_email", user["email"]) is None
        with pytest.raises(AdapterConflict):
            await call(
                adapter, "create_user_and_account", new.user(email=owner["email"]), new.account("")
            )
        assert await call(adapter, "get_user_by_email", owner["email"]) == owner
