"""The conformance suite as docs/testing.md shows it: three lines, the default ``adapter``
fixture (made per test, closed after it) on asyncio; it fails an adapter that breaks the
contract, and skips (naming it) what an adapter lacks."""

from __future__ import annotations

import inspect
from typing import Any

import anyio
import pytest

from io_bindings.db.memory import MemoryAdapter
from io_bindings.testing.adapter_suite import AdapterSuite, Records
from sansio_auth.adapters import AccountStore, Adapter, AtomicSignUp


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


class Lacking:
    """A memory adapter without one method (as a store that does not implement it)."""

    def __init__(self, adapter: MemoryAdapter, missing: str) -> None:
        self.adapter, self.missing = adapter, missing

    def __getattr__(self, name: str) -> Any:
        if name == self.missing:
            raise AttributeError(name)
        return getattr(self.adapter, name)


OPTIONAL = sorted(
    name
    for protocol in (Adapter, AtomicSignUp, AccountStore)
    for name, value in vars(protocol).items()
    if inspect.isfunction(value) and not name.startswith("_")
)
CASES = sorted(name for name in dir(AdapterSuite) if name.startswith("test_"))


def outcome(case_name: str, adapter: Any) -> str:
    """How one case of the suite ends on ``adapter``: "passed", or "skipped: <reason>"."""
    case = getattr(AdapterSuite(), case_name)
    args = (adapter, Records())[: len(inspect.signature(case).parameters)]
    try:
        anyio.run(case, *args)
    except pytest.skip.Exception as skip:
        return f"skipped: {skip.msg}"
    return "passed"


@pytest.fixture(scope="module")
def complete() -> dict[str, str]:
    """Each case's outcome on the memory adapter, which has every method."""
    return {case: outcome(case, MemoryAdapter()) for case in CASES}


@pytest.mark.parametrize("missing", OPTIONAL)
def test_a_case_of_a_method_the_adapter_lacks_is_skipped_naming_it(
    missing: str, complete: dict[str, str]
) -> None:
    """Every method of the protocols is optional in a store: each case that calls one the
    store lacks is skipped, saying which, rather than failing; the others end as they do on
    the whole adapter."""
    outcomes = {case: outcome(case, Lacking(MemoryAdapter(), missing)) for case in CASES}
    changed = {case: result for case, result in outcomes.items() if result != complete[case]}
    assert changed, f"no case calls {missing}"
    assert all(result == f"skipped: the adapter has no {missing}" for result in changed.values())
