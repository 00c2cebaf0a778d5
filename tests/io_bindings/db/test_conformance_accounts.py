"""The account methods (password hashes and second factors) on every adapter of
``io_bindings.db``, on asyncio and trio: round trips, the cascade with the user, refusals
of unknown users, and single use under concurrency (one TOTP step, one recovery code)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import anyio
import pytest

from io_bindings.db._base import StoreAdapter
from sansio_auth.adapters import AccountStore
from tests.io_bindings.db.test_conformance import a_user

pytestmark = pytest.mark.anyio

ENABLED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def second_factor(user_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "totp_secret": "v1.abcdefgh.sealed",
        "totp_last_step": None,
        "recovery_codes": ["a" * 64, "b" * 64, "c" * 64],
        "enabled_at": ENABLED,
        **extra,
    }


async def new_user(adapter: StoreAdapter) -> str:
    return str((await adapter.create_user(a_user()))["id"])  # type: ignore[arg-type]


async def test_every_adapter_is_an_account_store(adapter: StoreAdapter) -> None:
    assert isinstance(adapter, AccountStore)


async def test_password_hash_round_trip(adapter: StoreAdapter) -> None:
    user_id = await new_user(adapter)
    assert await adapter.get_password_hash(user_id) is None
    await adapter.set_password_hash(user_id, "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA")
    assert await adapter.get_password_hash(user_id) == "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA"
    await adapter.set_password_hash(user_id, "pbkdf2_sha256$1$s$h")
    assert await adapter.get_password_hash(user_id) == "pbkdf2_sha256$1$s$h"
    await adapter.set_password_hash(user_id, None)
    assert await adapter.get_password_hash(user_id) is None


async def test_a_password_for_no_user_is_refused(adapter: StoreAdapter) -> None:
    missing = await new_user(adapter)
    await adapter.delete_user(missing)
    with pytest.raises(LookupError):
        await adapter.set_password_hash(missing, "$argon2id$x")
    assert await adapter.get_password_hash("no-such-user") is None


async def test_second_factor_round_trip(adapter: StoreAdapter) -> None:
    user_id = await new_user(adapter)
    assert await adapter.get_two_factor(user_id) is None
    stored = await adapter.set_two_factor(second_factor(user_id))  # type: ignore[arg-type]
    assert stored == second_factor(user_id)
    assert await adapter.get_two_factor(user_id) == second_factor(user_id)
    replaced = second_factor(user_id, recovery_codes=["d" * 64], totp_last_step=7)
    await adapter.set_two_factor(replaced)  # type: ignore[arg-type]
    assert await adapter.get_two_factor(user_id) == replaced
    assert await adapter.delete_two_factor(user_id) == replaced
    assert await adapter.get_two_factor(user_id) is None
    assert await adapter.delete_two_factor(user_id) is None


async def test_a_second_factor_for_no_user_is_refused(adapter: StoreAdapter) -> None:
    missing = await new_user(adapter)
    await adapter.delete_user(missing)
    with pytest.raises(LookupError):
        await adapter.set_two_factor(second_factor(missing))  # type: ignore[arg-type]


async def test_they_go_with_their_user(adapter: StoreAdapter) -> None:
    user_id = await new_user(adapter)
    await adapter.set_password_hash(user_id, "$argon2id$x")
    await adapter.set_two_factor(second_factor(user_id))  # type: ignore[arg-type]
    await adapter.delete_user(user_id)
    assert await adapter.get_password_hash(user_id) is None
    assert await adapter.get_two_factor(user_id) is None


async def test_totp_steps_only_move_forward(adapter: StoreAdapter) -> None:
    user_id = await new_user(adapter)
    assert not await adapter.use_totp_step(user_id, 100)  # no second factor yet
    await adapter.set_two_factor(second_factor(user_id))  # type: ignore[arg-type]
    assert await adapter.use_totp_step(user_id, 100)
    assert not await adapter.use_totp_step(user_id, 100)
    assert not await adapter.use_totp_step(user_id, 99)
    assert await adapter.use_totp_step(user_id, 101)
    found = await adapter.get_two_factor(user_id)
    assert found is not None
    assert found["totp_last_step"] == 101


async def test_recovery_codes_are_used_once(adapter: StoreAdapter) -> None:
    user_id = await new_user(adapter)
    await adapter.set_two_factor(second_factor(user_id))  # type: ignore[arg-type]
    assert await adapter.use_recovery_code(user_id, "b" * 64)
    assert not await adapter.use_recovery_code(user_id, "b" * 64)
    assert not await adapter.use_recovery_code(user_id, "z" * 64)
    found = await adapter.get_two_factor(user_id)
    assert found is not None
    assert found["recovery_codes"] == ["a" * 64, "c" * 64]


async def test_racing_uses_have_one_winner(adapter: StoreAdapter) -> None:
    user_id = await new_user(adapter)
    await adapter.set_two_factor(second_factor(user_id))  # type: ignore[arg-type]
    steps: list[bool] = []
    codes: list[bool] = []

    async def use() -> None:
        steps.append(await adapter.use_totp_step(user_id, 500))
        codes.append(await adapter.use_recovery_code(user_id, "a" * 64))

    async with anyio.create_task_group() as group:
        for _ in range(8):
            group.start_soon(use)
    assert steps.count(True) == 1
    assert codes.count(True) == 1
