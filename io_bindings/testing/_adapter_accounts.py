"""The adapter suite's cases for password hashes and second factors (ours, not Auth.js's):
:class:`sansio_auth.adapters.AccountStore`. Skipped for an adapter without those methods."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from ._adapter_kit import NO_SUCH_USER, NOW, AdapterCases, Records, call, race

PASSWORDS = ("get_password_hash", "set_password_hash")
TWO_FACTOR = (
    "get_two_factor",
    "set_two_factor",
    "delete_two_factor",
    "use_totp_step",
    "use_recovery_code",
)


def second_factor(user_id: str, **extra: Any) -> dict[str, Any]:
    """A second factor as the engine stores it (sealed secret, hashed codes)."""
    return {
        "user_id": user_id,
        "totp_secret": "v1.abcdefgh.c2VhbGVkIHNlY3JldA",
        "totp_last_step": None,
        "recovery_codes": ["a" * 64, "b" * 64, "c" * 64],
        "enabled_at": NOW - timedelta(days=1),
        **extra,
    }


class AccountCases(AdapterCases):
    """Password hashes and second factors: round trips, refusals, cascades, single use."""

    async def test_password_hashes(self, adapter: Any, new: Records) -> None:
        self.need(adapter, *PASSWORDS)
        user_id = (await self.user(adapter, new))["id"]
        assert await call(adapter, "get_password_hash", user_id) is None
        argon2 = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g"
        await call(adapter, "set_password_hash", user_id, argon2)
        assert await call(adapter, "get_password_hash", user_id) == argon2
        await call(adapter, "set_password_hash", user_id, "pbkdf2_sha256$1$s$h")
        assert await call(adapter, "get_password_hash", user_id) == "pbkdf2_sha256$1$s$h"
        await call(adapter, "set_password_hash", user_id, None)
        assert await call(adapter, "get_password_hash", user_id) is None
        assert await call(adapter, "get_password_hash", NO_SUCH_USER) is None
        with pytest.raises(LookupError):
            await call(adapter, "set_password_hash", NO_SUCH_USER, argon2)

    async def test_second_factors(self, adapter: Any, new: Records) -> None:
        self.need(adapter, *TWO_FACTOR)
        user_id = (await self.user(adapter, new))["id"]
        assert await call(adapter, "get_two_factor", user_id) is None
        first = second_factor(user_id)
        assert await call(adapter, "set_two_factor", first) == first
        assert await call(adapter, "get_two_factor", user_id) == first
        replaced = second_factor(user_id, recovery_codes=["d" * 64], totp_last_step=7)
        await call(adapter, "set_two_factor", replaced)
        assert await call(adapter, "get_two_factor", user_id) == replaced
        assert await call(adapter, "delete_two_factor", user_id) == replaced
        assert await call(adapter, "get_two_factor", user_id) is None
        assert await call(adapter, "delete_two_factor", user_id) is None
        with pytest.raises(LookupError):
            await call(adapter, "set_two_factor", second_factor(NO_SUCH_USER))

    async def test_they_go_with_their_user(self, adapter: Any, new: Records) -> None:
        self.need(adapter, *PASSWORDS, *TWO_FACTOR, "delete_user")
        user_id = (await self.user(adapter, new))["id"]
        await call(adapter, "set_password_hash", user_id, "$argon2id$x")
        await call(adapter, "set_two_factor", second_factor(user_id))
        await call(adapter, "delete_user", user_id)
        assert await call(adapter, "get_password_hash", user_id) is None
        assert await call(adapter, "get_two_factor", user_id) is None

    async def test_totp_steps_only_move_forward(self, adapter: Any, new: Records) -> None:
        self.need(adapter, *TWO_FACTOR)
        user_id = (await self.user(adapter, new))["id"]
        assert not await call(adapter, "use_totp_step", user_id, 100)  # no second factor yet
        await call(adapter, "set_two_factor", second_factor(user_id))
        assert await call(adapter, "use_totp_step", user_id, 100)
        assert not await call(adapter, "use_totp_step", user_id, 100)
        assert not await call(adapter, "use_totp_step", user_id, 99)
        assert await call(adapter, "use_totp_step", user_id, 101)
        found = await call(adapter, "get_two_factor", user_id)
        assert found["totp_last_step"] == 101

    async def test_recovery_codes_are_used_once(self, adapter: Any, new: Records) -> None:
        self.need(adapter, *TWO_FACTOR)
        user_id = (await self.user(adapter, new))["id"]
        await call(adapter, "set_two_factor", second_factor(user_id))
        assert await call(adapter, "use_recovery_code", user_id, "b" * 64)
        assert not await call(adapter, "use_recovery_code", user_id, "b" * 64)
        assert not await call(adapter, "use_recovery_code", user_id, "z" * 64)
        found = await call(adapter, "get_two_factor", user_id)
        assert found["recovery_codes"] == ["a" * 64, "c" * 64]

    async def test_racing_uses_have_one_winner(self, adapter: Any, new: Records) -> None:
        """Of concurrent uses of one TOTP step, or of one recovery code, exactly one wins."""
        self.need(adapter, *TWO_FACTOR)
        user_id = (await self.user(adapter, new))["id"]
        await call(adapter, "set_two_factor", second_factor(user_id))
        steps = await race(8, lambda _: call(adapter, "use_totp_step", user_id, 500))
        codes = await race(8, lambda _: call(adapter, "use_recovery_code", user_id, "a" * 64))
        assert steps.count(True) == 1
        assert codes.count(True) == 1
