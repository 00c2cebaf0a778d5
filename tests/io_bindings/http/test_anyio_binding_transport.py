"""The anyio binding's default transport: an HTTPClient on the anyio backend, on both loops."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from types import ModuleType
from typing import Any

import pytest

import io_bindings.anyio as binding
from io_bindings.http import AnyioBackend
from tests.io_bindings import binding_checks

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.mark.parametrize("check", binding_checks.CHECKS, ids=lambda check: check.__name__)
async def test_binding_check(check: Callable[[ModuleType], Coroutine[Any, Any, None]]) -> None:
    await check(binding)


async def test_sends_http_on_anyio_streams() -> None:
    await binding_checks.sends_http_with_its_own_backend(binding, AnyioBackend)
