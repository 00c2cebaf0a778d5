"""The public adapter conformance suite (``io_bindings.testing.adapter_suite``) on every adapter
of ``io_bindings.db`` (on trio too where a store's code differs by loop: ``conftest.py``);
and what every one of them has besides."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from io_bindings.db._base import StoreAdapter
from io_bindings.testing.adapter_suite import AdapterSuite
from sansio_auth.adapters import AccountStore, Adapter, AtomicSignUp

KEEP_CUSTOM_KEYS = {"memory", "sqlite", "redis"}  # the others keep keys that name a column


class TestConformance(AdapterSuite):
    @pytest.fixture
    async def adapter(
        self, adapter_kind: str, make_adapter: Callable[[], StoreAdapter]
    ) -> AsyncIterator[StoreAdapter]:
        self.keeps_custom_keys = adapter_kind in KEEP_CUSTOM_KEYS
        async with make_adapter() as opened:
            yield opened


def test_the_adapters_implement_the_protocols(
    adapter_kind: str, make_adapter: Callable[[], StoreAdapter]
) -> None:
    adapter = make_adapter()
    assert isinstance(adapter, Adapter)
    assert isinstance(adapter, AtomicSignUp)
    assert isinstance(adapter, AccountStore)  # issue 28's methods, in every store


@pytest.mark.anyio
async def test_a_closed_adapter_refuses_calls(make_adapter: Callable[[], StoreAdapter]) -> None:
    adapter = make_adapter()
    await adapter.open()
    await adapter.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await adapter.get_user("1")
