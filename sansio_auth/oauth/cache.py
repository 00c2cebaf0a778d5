"""The engine-held memo of what providers publish: discovery documents and JWKS.

Pure: entries expire by the ``now`` the caller passes (the injected clock). One
:class:`ProviderCache` lives as long as the engine's settings; flows share it.
"""

from __future__ import annotations

from typing import Any

DISCOVERY_TTL = 24 * 60 * 60
"""Default lifetime of a discovery document (``Cache-Control: max-age`` wins, within bounds)."""
JWKS_TTL = 60 * 60
"""Default lifetime of a JWKS (``Cache-Control: max-age`` wins, within bounds)."""
JWKS_REFETCH_INTERVAL = 60
"""At most one JWKS refetch per URL in this many seconds, however many unknown ``kid``\\s."""


class TTLCache:
    """Values by key, each until its own expiry time."""

    __slots__ = ("_entries", "_max_entries")

    def __init__(self, *, max_entries: int | None = None) -> None:
        self._entries: dict[str, tuple[float, Any]] = {}
        self._max_entries = max_entries

    def get(self, key: str, now: float) -> Any:
        """The live value of ``key``, or ``None``."""
        entry = self._entries.get(key)
        if entry is None or entry[0] <= now:
            return None
        return entry[1]

    def put(self, key: str, value: Any, *, now: float, ttl: float) -> None:
        """Keep ``value`` for ``ttl`` seconds from ``now`` (at a size cap, expired entries
        go first, then the oldest)."""
        if self._max_entries is not None and len(self._entries) >= self._max_entries:
            self._entries = {k: e for k, e in self._entries.items() if e[0] > now}
            while len(self._entries) >= self._max_entries:
                del self._entries[next(iter(self._entries))]
        self._entries[key] = (now + ttl, value)

    def clear(self) -> None:
        """Forget everything."""
        self._entries.clear()


class ProviderCache:
    """Discovery documents and JWKS by URL, and when each JWKS was last fetched."""

    __slots__ = ("_jwks_fetched_at", "jwks", "metadata", "revocations")

    def __init__(self) -> None:
        self.metadata = TTLCache()
        self.jwks = TTLCache()
        self.revocations = TTLCache(max_entries=10_000)
        """Session "not before" marks by the keys checked (revocable sessions)."""
        self._jwks_fetched_at: dict[str, float] = {}

    def jwks_fetched(self, url: str, now: float) -> None:
        """Record that the JWKS at ``url`` was fetched at ``now``."""
        self._jwks_fetched_at[url] = now

    def may_refetch_jwks(self, url: str, now: float) -> bool:
        """Whether an unknown ``kid`` may trigger a JWKS refetch now (rate limit)."""
        last = self._jwks_fetched_at.get(url)
        return last is None or now - last >= JWKS_REFETCH_INTERVAL

    def __repr__(self) -> str:
        return "ProviderCache()"
