"""RuntimeCache: one runtime per config object, the most recent kept, pinned ones for good;
ConfigSource's runtime outside a request."""

from __future__ import annotations

import pytest

from io_bindings.anyio import Auth
from io_bindings.runtimes import ConfigSource, RuntimeCache
from sansio_auth import AuthConfig

SECRET = "runtime-cache-secret-0123456789abcdef"


def config() -> AuthConfig:
    return AuthConfig(secret=SECRET, trust_host=True)


def test_one_runtime_per_config_object_and_the_oldest_evicted() -> None:
    made: list[AuthConfig] = []

    def make(config: AuthConfig) -> Auth:
        made.append(config)
        return Auth(config, env={})

    cache = RuntimeCache(make, size=2)
    first, second, third = config(), config(), config()
    auth = cache.get(first)
    assert cache.get(first) is auth
    cache.get(second)
    cache.get(first)  # used again: second is now the oldest
    cache.get(third)
    assert cache.get(first) is auth
    cache.get(second)  # evicted: made again
    assert made == [first, second, third, second]


def test_a_pinned_runtime_is_never_evicted() -> None:
    cache = RuntimeCache(lambda config: Auth(config, env={}), size=1)
    pinned = config()
    auth = cache.pin(pinned, Auth(pinned, env={}))
    for _ in range(3):
        cache.get(config())
    assert cache.get(pinned) is auth
    held = cache.drain()
    assert auth in held
    assert len(held) == 2  # the pinned one and the most recent other
    assert cache.drain() == []


def test_the_fixed_runtime_outside_a_request() -> None:
    """A fixed config's runtime (the one its requests get); a config function needs a
    request, so the caller's error is raised."""
    fixed = config()
    source = ConfigSource(fixed, lambda c: Auth(c, env={}))
    runtime = source.fixed_runtime(RuntimeError("unused"))
    assert source.resolve(object()) is runtime is source.fixed_runtime(RuntimeError("unused"))
    eager = ConfigSource(fixed, lambda c: Auth(c, env={}), eager=True)
    assert eager.fixed_runtime(RuntimeError("unused")) is eager.fixed
    lazy = ConfigSource(lambda request: fixed, lambda c: Auth(c, env={}))
    with pytest.raises(LookupError, match="needs a request"):
        lazy.fixed_runtime(LookupError("needs a request"))
