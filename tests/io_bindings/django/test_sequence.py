"""``sequence`` keeps the mode Django gave it, adapting members that cannot run in it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction

from io_bindings.django import sequence


def tagging(tag: str) -> Callable[[Any], Any]:
    """A plain sync-only Django middleware factory appending ``tag`` to the response."""

    def factory(get_response: Any) -> Any:
        def middleware(request: list[str]) -> list[str]:
            request.append(f"{tag}>")
            return [*get_response(request), f"<{tag}"]

        return middleware

    return factory


def async_only(get_response: Any) -> Any:
    async def middleware(request: list[str]) -> list[str]:
        request.append("async>")
        return [*await get_response(request), "<async"]

    return middleware


async_only.sync_capable = False  # type: ignore[attr-defined]
async_only.async_capable = True  # type: ignore[attr-defined]


def test_members_run_in_order_in_a_sync_chain() -> None:
    def view(request: list[str]) -> list[str]:
        return [*request, "view"]

    chain = sequence(tagging("a"), async_only, tagging("b"))(view)
    assert not iscoroutinefunction(chain)
    assert chain([]) == ["a>", "async>", "b>", "view", "<b", "<async", "<a"]


def test_members_run_in_order_in_an_async_chain() -> None:
    async def view(request: list[str]) -> list[str]:
        return [*request, "view"]

    chain = sequence(tagging("a"), async_only)(view)
    assert iscoroutinefunction(chain)
    assert asyncio.run(chain([])) == ["a>", "async>", "view", "<async", "<a"]
