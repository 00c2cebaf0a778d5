"""One runtime per configuration object, for adapters whose config comes per request.

A lazy config (a function of the request) usually returns one of a few config
objects (one per tenant or environment); building an engine for each request
would redo the start-up checks and drop the provider cache. :class:`RuntimeCache`
keeps the runtime of the ``size`` most recently used config objects, and any
number of pinned ones, keyed by identity (a config is immutable).
"""

from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from sansio_auth import AuthConfig

from .anyio import Auth

DEFAULT_SIZE = 32
"""How many configurations (and their runtimes) a :class:`RuntimeCache` keeps."""


class RuntimeCache:
    """The :class:`Auth` of each config object, made by ``make`` on first use (thread-safe)."""

    def __init__(self, make: Callable[[AuthConfig], Auth], size: int = DEFAULT_SIZE) -> None:
        self._make = make
        self._size = size
        self._lock = threading.Lock()
        self._pinned: dict[int, tuple[AuthConfig, Auth]] = {}
        self._recent: OrderedDict[int, tuple[AuthConfig, Auth]] = OrderedDict()
        self._last: tuple[AuthConfig, Auth] | None = None
        """The pair :meth:`get` served last (pinned or the most recent one, so never the
        next evicted): read without the lock, replaced whole under it."""

    def get(self, config: AuthConfig) -> Auth:
        """The runtime of ``config``: the cached one, or a new one."""
        last = self._last  # one read: a pair, never changed in place
        if last is not None and last[0] is config:  # already the most recent: no lock
            return last[1]
        key = id(config)
        with self._lock:
            found = self._pinned.get(key) or self._recent.get(key)
            if found is not None and found[0] is config:
                if key in self._recent:
                    self._recent.move_to_end(key)
                self._last = found
                return found[1]
        auth = self._make(config)  # outside the lock: start-up checks may be slow or raise
        with self._lock:
            self._recent[key] = (config, auth)
            while len(self._recent) > self._size:
                self._recent.popitem(last=False)
            self._last = self._recent.get(key)  # None when size 0 kept nothing
        return auth

    def pin(self, config: AuthConfig, auth: Auth) -> Auth:
        """Make ``auth`` the runtime of ``config`` for good (never evicted)."""
        with self._lock:
            self._recent.pop(id(config), None)
            self._pinned[id(config)] = (config, auth)
            self._last = None
        return auth

    def __len__(self) -> int:
        """How many runtimes are held."""
        return len(self._pinned) + len(self._recent)

    def drain(self) -> list[Auth]:
        """Every runtime held, forgotten (to close them at shutdown)."""
        with self._lock:
            held = [auth for _, auth in (*self._pinned.values(), *self._recent.values())]
            self._pinned.clear()
            self._recent.clear()
            self._last = None
        return held


class ConfigSource:
    """A framework adapter's config: an :class:`AuthConfig`, or a function of the request
    (sync or ``async``) returning one, called for every request (lazy initialization). One
    runtime is kept per config object (see :class:`RuntimeCache`); ``refuse`` makes the
    error for a function that returns something else. With ``eager``, a fixed config's
    runtime is made now (its start-up checks fail at once) and kept in :attr:`fixed`."""

    def __init__(
        self,
        source: AuthConfig | Callable[[Any], Any],
        make: Callable[[AuthConfig], Auth],
        refuse: Callable[[str], Exception] = TypeError,
        *,
        eager: bool = False,
    ) -> None:
        if not isinstance(source, AuthConfig) and not callable(source):
            raise TypeError("give an AuthConfig or a function of the request")
        self.source = source
        self._by_config = RuntimeCache(make)
        self._refuse = refuse
        self.fixed: Auth | None = None
        """The runtime of a fixed config made at start-up (``eager``)."""
        if eager and isinstance(source, AuthConfig):
            self.fixed = self._by_config.pin(source, make(source))

    def resolve(self, request: Any) -> Auth | Awaitable[Auth]:
        """The runtime for ``request``; awaitable when the config function is ``async``."""
        if self.fixed is not None:
            return self.fixed
        if isinstance(self.source, AuthConfig):  # made at the first request, kept from then on
            self.fixed = self._by_config.get(self.source)
            return self.fixed
        config = self.source(request)
        if inspect.isawaitable(config):
            return self._after(config)
        return self.for_config(config)

    def fixed_runtime(self, otherwise: Exception) -> Auth:
        """The runtime of a fixed config (outside a request: a task, a command); raises
        ``otherwise`` for a config function, which needs a request."""
        if isinstance(self.source, AuthConfig):
            return self.fixed or self._by_config.get(self.source)
        raise otherwise

    async def aresolve(self, request: Any) -> Auth:
        """The runtime for ``request``, from async code."""
        runtime = self.resolve(request)
        return await runtime if inspect.isawaitable(runtime) else runtime

    def for_config(self, config: Any) -> Auth:
        """The (cached) runtime of ``config``."""
        if not isinstance(config, AuthConfig):
            raise self._refuse(
                f"the config function returned {type(config).__name__}, not an AuthConfig"
            )
        return self._by_config.get(config)

    async def _after(self, config: Awaitable[Any]) -> Auth:
        return self.for_config(await config)
