"""The conformance suite as docs/testing.md shows it: three lines, the default ``adapter``
fixture (made per test, closed after it) on asyncio; and it fails an adapter that breaks the
contract."""

from __future__ import annotations

import anyio
import pytest

from io_bindings.db.memory import MemoryAdapter
from io_bindings.testing.adapter_suite import AdapterSuite, Records


class TestTheDocumentedThreeLines(AdapterSuite):
    make_adapter = staticmethod(MemoryAdapter)


class ReusableTokens(MemoryAdapter):
    """Breaks the contract: a verification token may be used again."""

    async def use_verification_token(self, identifier: str, token: str):  # type: ignore[no-untyped-def]
        found = await super().use_verification_token(identifier, token)
        if found is not None:
            await self.create_verification_token(found)
        return found


def test_the_suite_fails_an_adapter_that_lets_a_token_be_used_twice() -> None:
    suite = AdapterSuite()
    for case in (suite.test_verification_tokens_are_used_once,
                 suite.test_racing_uses_of_one_token_have_one_winner):  # fmt: skip
        with pytest.raises(AssertionError):
            anyio.run(case, ReusableTokens(), Records())
        anyio.run(case, MemoryAdapter(), Records())  # the honest adapter passes
