"""pytest fixtures: ``memory_op`` and ``auth_browser`` (opt in from your root ``conftest.py``).

>>> pytest_plugins = ["sansio_auth.testing.pytest_plugin"]
>>> @pytest.fixture
... def auth_config(memory_op):
...     return AuthConfig(secret=..., providers=[Credentials(...), memory_op.provider()])
>>> def test_sign_in(auth_browser):
...     auth_browser.sign_in("op")
...     assert auth_browser.session()["user"]["name"] == "Alice Liddell"
"""

from __future__ import annotations

import pytest

from ..config import AuthConfig
from .browser import Browser
from .op import MemoryOP


@pytest.fixture
def memory_op() -> MemoryOP:
    """A fresh :class:`~sansio_auth.testing.MemoryOP` (user ``alice``)."""
    return MemoryOP()


@pytest.fixture
def auth_config() -> AuthConfig:
    """Your configuration: override this fixture (it may take ``memory_op``)."""
    raise pytest.UsageError("define an `auth_config` fixture returning your AuthConfig")


@pytest.fixture
def auth_browser(auth_config: AuthConfig, memory_op: MemoryOP) -> Browser:
    """A :class:`~sansio_auth.testing.Browser` on ``auth_config``, signing in at ``memory_op``."""
    return Browser(auth_config, op=memory_op)
