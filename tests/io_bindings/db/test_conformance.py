"""The adapter conformance suite: every adapter of ``io_bindings.db``, on asyncio and trio.

Follows Auth.js's shared adapter tests (``packages/utils/adapter``) and the
contract in ``sansio_auth.adapters``, plus what the engine relies on:
atomic single use of verification tokens under concurrency, uniqueness
races with exactly one winner, cascades, and all-or-nothing sign-up.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import anyio
import pytest

from io_bindings.db._base import StoreAdapter
from sansio_auth.adapters import Adapter, AdapterConflict, AtomicSignUp

pytestmark = pytest.mark.anyio

NOW = datetime.now(UTC).replace(microsecond=123456)
ONE_WEEK = NOW + timedelta(days=7)
ONE_MONTH = NOW + timedelta(days=30)


def a_user(**extra: Any) -> dict[str, Any]:
    return {
        "id": str(uuid.uuid4()),
        "email": f"{uuid.uuid4().hex[:12]}@example.com",
        "email_verified": NOW,
        "name": "Fill Murray",
        "image": "https://www.fillmurray.com/460/300",
        **extra,
    }


def an_account(user_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "type": "oauth",
        "provider": "github",
        "provider_account_id": str(uuid.uuid4()),
        "access_token": str(uuid.uuid4()),
        "token_type": "bearer",
        "id_token": str(uuid.uuid4()),
        "refresh_token": str(uuid.uuid4()),
        "scope": "user",
        "expires_at": 2_592_000,
        "session_state": str(uuid.uuid4()),
        **extra,
    }


def a_session(user_id: str, **extra: Any) -> dict[str, Any]:
    return {"session_token": str(uuid.uuid4()), "user_id": user_id, "expires": ONE_WEEK, **extra}


def a_token(identifier: str = "info@example.com") -> dict[str, Any]:
    hashed = hashlib.sha256(f"{uuid.uuid4()}anything".encode()).hexdigest()
    return {"identifier": identifier, "token": hashed, "expires": NOW + timedelta(minutes=15)}


def an_authenticator(user_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "credential_id": uuid.uuid4().hex,
        "user_id": user_id,
        "provider_account_id": uuid.uuid4().hex,
        "credential_public_key": "pQECAyYgASFYIA",
        "counter": 0,
        "credential_device_type": "singleDevice",
        "credential_backed_up": False,
        "transports": "usb,nfc",
        **extra,
    }


async def new_user(adapter: StoreAdapter, **extra: Any) -> dict[str, Any]:
    return dict(await adapter.create_user(a_user(**extra)))  # type: ignore[arg-type]


async def race(count: int, attempt: Callable[[], Awaitable[Any]]) -> list[Any]:
    """Run ``attempt`` ``count`` times at once; the results (exceptions included)."""
    results: list[Any] = []

    async def one() -> None:
        try:
            results.append(await attempt())
        except Exception as err:
            results.append(err)

    async with anyio.create_task_group() as group:
        for _ in range(count):
            group.start_soon(one)
    return results


def test_the_adapters_implement_the_protocols(adapter_kind: str, make_adapter: Any) -> None:
    adapter = make_adapter()
    assert isinstance(adapter, Adapter)
    assert isinstance(adapter, AtomicSignUp)


async def test_create_and_get_user(adapter: StoreAdapter) -> None:
    given = a_user()
    created = dict(await adapter.create_user(given))  # type: ignore[arg-type]
    assert isinstance(created["id"], str)
    assert created == {**given, "id": created["id"]}
    assert await adapter.get_user(created["id"]) == created
    assert await adapter.get_user_by_email(given["email"]) == created
    assert await adapter.get_user(str(uuid.uuid4())) is None
    assert await adapter.get_user("987654") is None
    assert await adapter.get_user_by_email("non-existent-email") is None
    assert await adapter.get_user_by_email(given["email"].upper()) is None


async def test_optional_user_fields_default_to_none(adapter: StoreAdapter) -> None:
    created = await adapter.create_user({"id": "", "email": "a@b.c", "email_verified": None})
    assert created == {
        "id": created["id"],
        "email": "a@b.c",
        "email_verified": None,
        "name": None,
        "image": None,
    }
    assert created["id"]
    assert await adapter.get_user(created["id"]) == created


async def test_times_are_utc_and_naive_ones_are_refused(adapter: StoreAdapter) -> None:
    plus_two = NOW.astimezone(timezone(timedelta(hours=2)))
    user = await new_user(adapter, email_verified=plus_two)
    stored = await adapter.get_user(user["id"])
    assert stored is not None
    assert stored["email_verified"] == NOW
    assert stored["email_verified"].utcoffset() == timedelta(0)
    with pytest.raises(ValueError, match="timezone-aware"):
        await adapter.create_user(a_user(email_verified=datetime(2030, 1, 1)))
    with pytest.raises(ValueError, match="timezone-aware"):
        await adapter.create_session(a_session(user["id"], expires=datetime(2030, 1, 1)))


async def test_emails_are_unique_but_many_users_may_have_none(adapter: StoreAdapter) -> None:
    user = await new_user(adapter)
    with pytest.raises(AdapterConflict):
        await adapter.create_user(a_user(email=user["email"]))
    first = await adapter.create_user(a_user(email=None))
    second = await adapter.create_user(a_user(email=None))
    assert first["id"] != second["id"]
    assert await adapter.get_user(second["id"]) == second


async def test_update_user_changes_only_the_keys_given(adapter: StoreAdapter) -> None:
    user = await new_user(adapter)
    updated = await adapter.update_user({"id": user["id"], "name": "Updated Name"})
    assert updated == {**user, "name": "Updated Name"}
    assert await adapter.get_user(user["id"]) == updated
    later = NOW + timedelta(hours=1)
    updated = await adapter.update_user({"id": user["id"], "email_verified": later, "image": None})
    assert updated == {**user, "name": "Updated Name", "email_verified": later, "image": None}
    assert await adapter.get_user(user["id"]) == updated


async def test_update_user_moves_the_email_lookup(adapter: StoreAdapter) -> None:
    user, other = await new_user(adapter), await new_user(adapter)
    updated = await adapter.update_user({"id": user["id"], "email": "new@example.com"})
    assert await adapter.get_user_by_email("new@example.com") == updated
    assert await adapter.get_user_by_email(user["email"]) is None
    with pytest.raises(AdapterConflict):
        await adapter.update_user({"id": user["id"], "email": other["email"]})
    assert await adapter.get_user_by_email("new@example.com") == updated
    with pytest.raises(LookupError):
        await adapter.update_user({"id": "987654", "name": "nobody"})


async def test_link_account_with_every_token_field(adapter: StoreAdapter) -> None:
    user = await new_user(adapter)
    account = an_account(user["id"])
    assert await adapter.link_account(account) == account  # type: ignore[arg-type]
    assert await adapter.get_account("github", account["provider_account_id"]) == account
    found = await adapter.get_user_by_account("github", account["provider_account_id"])
    assert found == user
    assert await adapter.get_user_by_account("invalid-provider", "invalid-id") is None
    assert await adapter.get_user_by_account("google", account["provider_account_id"]) is None
    assert await adapter.get_account("github", "invalid-id") is None


async def test_token_fields_not_given_are_none(adapter: StoreAdapter) -> None:
    user = await new_user(adapter)
    account = {"user_id": user["id"], "type": "oidc", "provider": "p", "provider_account_id": "1"}
    linked = await adapter.link_account(account)  # type: ignore[arg-type]
    expected = {**an_account(user["id"]), **account}
    expected.update(dict.fromkeys(["access_token", "token_type", "id_token", "refresh_token"]))
    expected.update(scope=None, expires_at=None, session_state=None)
    assert linked == expected
    assert await adapter.get_account("p", "1") == expected


async def test_an_account_links_once_and_only_to_a_user(adapter: StoreAdapter) -> None:
    user, other = await new_user(adapter), await new_user(adapter)
    account = an_account(user["id"])
    await adapter.link_account(account)  # type: ignore[arg-type]
    with pytest.raises(AdapterConflict):
        await adapter.link_account({**account, "user_id": other["id"]})  # type: ignore[typeddict-item]
    with pytest.raises(LookupError):
        await adapter.link_account(an_account("987654"))  # type: ignore[arg-type]
    second = an_account(user["id"], provider="google")
    await adapter.link_account(second)  # type: ignore[arg-type]
    assert await adapter.get_user_by_account("google", second["provider_account_id"]) == user


async def test_unlink_account(adapter: StoreAdapter) -> None:
    user = await new_user(adapter)
    account = an_account(user["id"])
    await adapter.link_account(account)  # type: ignore[arg-type]
    assert await adapter.unlink_account("github", account["provider_account_id"]) == account
    assert await adapter.get_account("github", account["provider_account_id"]) is None
    assert await adapter.get_user_by_account("github", account["provider_account_id"]) is None
    assert await adapter.unlink_account("github", account["provider_account_id"]) is None
    assert await adapter.get_user(user["id"]) == user


async def test_sessions(adapter: StoreAdapter) -> None:
    user = await new_user(adapter)
    session = a_session(user["id"])
    assert await adapter.create_session(session) == session  # type: ignore[arg-type]
    assert await adapter.get_session_and_user(session["session_token"]) == {
        "session": session,
        "user": user,
    }
    assert await adapter.get_session_and_user("invalid-token") is None
    updated = await adapter.update_session(
        {"session_token": session["session_token"], "expires": ONE_MONTH}
    )
    assert updated == {**session, "expires": ONE_MONTH}
    found = await adapter.get_session_and_user(session["session_token"])
    assert found is not None
    assert found["session"]["expires"] == ONE_MONTH
    assert await adapter.update_session({"session_token": "nope", "expires": ONE_MONTH}) is None
    assert await adapter.delete_session(session["session_token"]) == updated
    assert await adapter.get_session_and_user(session["session_token"]) is None
    assert await adapter.delete_session(session["session_token"]) is None


async def test_a_session_needs_a_user_and_a_fresh_token(adapter: StoreAdapter) -> None:
    user = await new_user(adapter)
    with pytest.raises(LookupError):
        await adapter.create_session(a_session("987654"))  # type: ignore[arg-type]
    session = a_session(user["id"])
    await adapter.create_session(session)  # type: ignore[arg-type]
    with pytest.raises(AdapterConflict):
        await adapter.create_session(session)  # type: ignore[arg-type]


async def test_verification_tokens_are_used_once(adapter: StoreAdapter) -> None:
    token = a_token()
    assert await adapter.create_verification_token(token) == token  # type: ignore[arg-type]
    assert await adapter.use_verification_token(token["identifier"], token["token"]) == token
    assert await adapter.use_verification_token(token["identifier"], token["token"]) is None


async def test_verification_tokens_match_identifier_and_token(adapter: StoreAdapter) -> None:
    """CVE-2022-39263: a token for one address must not sign in another."""
    token = a_token("victim@example.com")
    await adapter.create_verification_token(token)  # type: ignore[arg-type]
    assert await adapter.use_verification_token("attacker@example.com", token["token"]) is None
    assert await adapter.use_verification_token("victim@example.com", "0" * 64) is None
    assert await adapter.use_verification_token("victim@example.com", token["token"]) == token


async def test_one_address_may_hold_several_tokens(adapter: StoreAdapter) -> None:
    first, second = a_token(), a_token()
    await adapter.create_verification_token(first)  # type: ignore[arg-type]
    await adapter.create_verification_token(second)  # type: ignore[arg-type]
    with pytest.raises(AdapterConflict):
        await adapter.create_verification_token(first)  # type: ignore[arg-type]
    assert await adapter.use_verification_token(second["identifier"], second["token"]) == second
    assert await adapter.use_verification_token(first["identifier"], first["token"]) == first


async def test_racing_uses_of_one_token_have_one_winner(adapter: StoreAdapter) -> None:
    for _ in range(10):
        token = a_token()
        await adapter.create_verification_token(token)  # type: ignore[arg-type]
        results = await race(
            4, lambda t=token: adapter.use_verification_token(t["identifier"], t["token"])
        )
        assert [r for r in results if r is not None] == [token]


async def test_racing_sign_ups_with_one_email_have_one_winner(adapter: StoreAdapter) -> None:
    email = "race@example.com"
    results = await race(4, lambda: adapter.create_user(a_user(email=email)))  # type: ignore[arg-type]
    winners = [r for r in results if isinstance(r, dict)]
    assert len(winners) == 1
    assert all(isinstance(r, AdapterConflict) for r in results if r not in winners)
    assert await adapter.get_user_by_email(email) == winners[0]


async def test_racing_links_of_one_account_have_one_winner(adapter: StoreAdapter) -> None:
    users = [await new_user(adapter) for _ in range(4)]
    pid = str(uuid.uuid4())
    attempts = iter(users)
    results = await race(
        4,
        lambda: adapter.link_account(an_account(next(attempts)["id"], provider_account_id=pid)),  # type: ignore[arg-type]
    )
    winners = [r for r in results if isinstance(r, dict)]
    assert len(winners) == 1
    assert all(isinstance(r, AdapterConflict) for r in results if r not in winners)
    owner = await adapter.get_user_by_account("github", pid)
    assert owner is not None
    assert owner["id"] == winners[0]["user_id"]


async def test_delete_user_cascades(adapter: StoreAdapter) -> None:
    user, other = await new_user(adapter), await new_user(adapter)
    accounts = [an_account(user["id"]), an_account(user["id"], provider="google")]
    sessions = [a_session(user["id"]), a_session(user["id"])]
    for account in accounts:
        await adapter.link_account(account)  # type: ignore[arg-type]
    for session in sessions:
        await adapter.create_session(session)  # type: ignore[arg-type]
    await adapter.create_authenticator(an_authenticator(user["id"]))  # type: ignore[arg-type]
    kept_session = a_session(other["id"])
    await adapter.create_session(kept_session)  # type: ignore[arg-type]

    assert await adapter.delete_user(user["id"]) == user
    assert await adapter.get_user(user["id"]) is None
    assert await adapter.get_user_by_email(user["email"]) is None
    for account in accounts:
        assert (
            await adapter.get_account(account["provider"], account["provider_account_id"]) is None
        )
        found = await adapter.get_user_by_account(
            account["provider"], account["provider_account_id"]
        )
        assert found is None
    for session in sessions:
        assert await adapter.get_session_and_user(session["session_token"]) is None
    assert await adapter.list_authenticators_by_user_id(user["id"]) == []
    assert await adapter.get_session_and_user(kept_session["session_token"]) is not None
    assert await adapter.delete_user(user["id"]) is None
    again = await adapter.create_user(a_user(email=user["email"]))
    assert await adapter.get_user_by_email(user["email"]) == again


async def test_create_user_and_account(adapter: StoreAdapter) -> None:
    user = a_user()
    account = an_account("ignored")
    created = await adapter.create_user_and_account(user, account)  # type: ignore[arg-type]
    new = created["user"]
    assert new == {**user, "id": new["id"]}
    assert created["account"] == {**account, "user_id": new["id"]}
    assert await adapter.get_user_by_account("github", account["provider_account_id"]) == new


async def test_create_user_and_account_is_all_or_nothing(adapter: StoreAdapter) -> None:
    owner = await new_user(adapter)
    taken = an_account(owner["id"])
    await adapter.link_account(taken)  # type: ignore[arg-type]
    user = a_user()
    with pytest.raises(AdapterConflict):
        await adapter.create_user_and_account(user, taken)  # type: ignore[arg-type]
    assert await adapter.get_user_by_email(user["email"]) is None
    with pytest.raises(AdapterConflict):
        await adapter.create_user_and_account(a_user(email=owner["email"]), an_account(""))  # type: ignore[arg-type]
    assert await adapter.get_user_by_email(owner["email"]) == owner


async def test_authenticators(adapter: StoreAdapter) -> None:
    user = await new_user(adapter)
    assert await adapter.list_authenticators_by_user_id(user["id"]) == []
    first, second = an_authenticator(user["id"]), an_authenticator(user["id"], transports=None)
    assert await adapter.create_authenticator(first) == first  # type: ignore[arg-type]
    await adapter.create_authenticator(second)  # type: ignore[arg-type]
    assert await adapter.get_authenticator(first["credential_id"]) == first
    assert await adapter.get_authenticator("unknown") is None
    listed = await adapter.list_authenticators_by_user_id(user["id"])
    assert sorted(listed, key=lambda a: a["credential_id"]) == sorted(
        [first, second], key=lambda a: a["credential_id"]
    )
    updated = await adapter.update_authenticator_counter(first["credential_id"], 7)
    assert updated == {**first, "counter": 7}
    assert await adapter.get_authenticator(first["credential_id"]) == updated
    with pytest.raises(LookupError):
        await adapter.update_authenticator_counter("unknown", 1)
    with pytest.raises(AdapterConflict):
        await adapter.create_authenticator(first)  # type: ignore[arg-type]
    with pytest.raises(LookupError):
        await adapter.create_authenticator(an_authenticator("987654"))  # type: ignore[arg-type]


async def test_authenticators_as_webauthn_stores_them(adapter: StoreAdapter) -> None:
    """Standard base64 ids and keys (``+``, ``/``, ``=``), uint32 counters, per-user lists."""
    ann, bob = await new_user(adapter), await new_user(adapter)
    credential_id = "+/8AAQ+/v7+/==" + uuid.uuid4().hex
    anns = an_authenticator(
        ann["id"],
        credential_id=credential_id,
        provider_account_id=credential_id,
        credential_public_key="pQECAyYgASFYIOm+Y57Ef3YY4GQtCmom0TPjaAdHX8mwHmIFVjRKmZTO",
        credential_device_type="multiDevice",
        credential_backed_up=True,
        transports="internal,hybrid",
    )
    bobs = an_authenticator(bob["id"], transports=None)
    await adapter.create_authenticator(anns)  # type: ignore[arg-type]
    await adapter.create_authenticator(bobs)  # type: ignore[arg-type]
    assert await adapter.get_authenticator(credential_id) == anns
    assert await adapter.list_authenticators_by_user_id(ann["id"]) == [anns]
    assert await adapter.list_authenticators_by_user_id(bob["id"]) == [bobs]
    top = 2**32 - 1
    assert await adapter.update_authenticator_counter(credential_id, top) == {
        **anns,
        "counter": top,
    }
    assert (await adapter.get_authenticator(credential_id))["counter"] == top  # type: ignore[index]
    assert await adapter.get_authenticator(bobs["credential_id"]) == bobs
    await adapter.delete_user(ann["id"])
    assert await adapter.get_authenticator(credential_id) is None
    assert await adapter.get_authenticator(bobs["credential_id"]) == bobs


async def test_concurrent_counter_updates_all_land(adapter: StoreAdapter) -> None:
    user = await new_user(adapter)
    authenticator = an_authenticator(user["id"])
    await adapter.create_authenticator(authenticator)  # type: ignore[arg-type]
    counters = iter(range(1, 9))
    results = await race(
        8,
        lambda: adapter.update_authenticator_counter(
            authenticator["credential_id"], next(counters)
        ),
    )
    assert all(isinstance(r, dict) for r in results), results
    final = await adapter.get_authenticator(authenticator["credential_id"])
    assert final is not None
    assert final["counter"] in {r["counter"] for r in results}
    assert {**final, "counter": 0} == authenticator


async def test_an_authenticator_race_on_one_credential_has_one_winner(
    adapter: StoreAdapter,
) -> None:
    user = await new_user(adapter)
    authenticator = an_authenticator(user["id"])
    results = await race(
        5,
        lambda: adapter.create_authenticator(authenticator),  # type: ignore[arg-type]
    )
    assert sum(isinstance(r, dict) for r in results) == 1
    assert all(isinstance(r, AdapterConflict) for r in results if not isinstance(r, dict))
    assert await adapter.list_authenticators_by_user_id(user["id"]) == [authenticator]


@pytest.mark.parametrize(
    "adapter_kind", ["memory", "sqlite", pytest.param("redis", marks=pytest.mark.e2e)]
)
async def test_custom_keys_pass_through(adapter: StoreAdapter) -> None:
    """PostgreSQL keeps custom keys only in columns added to its tables (see test_postgres)."""
    user = await new_user(adapter, role="admin", phone="00000000000")
    assert user["role"] == "admin"
    assert await adapter.get_user(user["id"]) == user
    updated = await adapter.update_user({"id": user["id"], "role": "user"})  # type: ignore[typeddict-unknown-key]
    assert updated == {**user, "role": "user"}
    account = an_account(user["id"], refresh_token_expires_in=15897600)
    await adapter.link_account(account)  # type: ignore[arg-type]
    assert await adapter.get_account("github", account["provider_account_id"]) == account


async def test_a_closed_adapter_refuses_calls(make_adapter: Callable[[], StoreAdapter]) -> None:
    adapter = make_adapter()
    await adapter.open()
    await adapter.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await adapter.get_user("1")
