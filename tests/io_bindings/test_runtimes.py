"""RuntimeCache: one runtime per config object, the most recent kept, pinned ones for good."""

from __future__ import annotations

from io_bindings.anyio import Auth
from io_bindings.runtimes import RuntimeCache
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
