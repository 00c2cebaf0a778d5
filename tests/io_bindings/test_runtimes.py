"""RuntimeCache: one runtime per config object, the most recent kept, pinned ones for good;
ConfigSource's runtime outside a request."""

from __future__ import annotations

import sys
import threading

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


def test_the_last_runtime_served_is_the_current_one_of_its_config() -> None:
    """:meth:`RuntimeCache.get` answers the config it served last without its lock: never
    with that runtime for another config, nor once it was evicted, re-pinned or drained."""
    made: list[AuthConfig] = []

    def make(config: AuthConfig) -> Auth:
        made.append(config)
        return Auth(config, env={})

    cache = RuntimeCache(make, size=1)
    first, second = config(), config()
    auth = cache.get(first)
    assert cache.get(first) is auth
    other = cache.get(second)
    assert other is not auth
    assert cache.get(first) is not auth  # evicted by second: made again
    assert made == [first, second, first]
    repinned = cache.pin(first, Auth(first, env={}))
    assert cache.get(first) is repinned
    assert auth not in cache.drain()
    assert cache.get(first) not in (repinned, auth)  # drained: made again
    nothing_kept = RuntimeCache(make, size=0)
    assert nothing_kept.get(first) is not nothing_kept.get(first)
    assert len(nothing_kept) == 0


def test_threads_asking_for_several_configs_get_each_its_runtime() -> None:
    configs = [config() for _ in range(4)]
    runtimes = {id(c): Auth(c, env={}) for c in configs}
    cache = RuntimeCache(lambda config: runtimes[id(config)], size=2)  # evictions under way
    wrong: list[int] = []

    def ask(offset: int) -> None:
        for i in range(2_000):
            chosen = configs[(i // (1 + offset) + offset) % len(configs)]
            if cache.get(chosen) is not runtimes[id(chosen)]:
                wrong.append(i)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=ask, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []
    assert len(cache) == 2


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
