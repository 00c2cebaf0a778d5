"""The asyncio binding, run by ``asyncio.run`` (no anyio test runner)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from types import ModuleType
from typing import Any

import pytest

import io_bindings.asyncio as binding
from io_bindings.http import AsyncioBackend
from tests.io_bindings import binding_checks

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("check", binding_checks.CHECKS, ids=lambda check: check.__name__)
def test_binding_check(check: Callable[[ModuleType], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(check(binding))


def test_sends_http_on_asyncio_streams() -> None:
    asyncio.run(binding_checks.sends_http_with_its_own_backend(binding, AsyncioBackend))
