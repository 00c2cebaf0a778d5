"""Refreshes in single flight across processes, in Redis (a `SingleFlightStore`).

Two keys per flight (under the adapter's prefix): ``flight:lease:<key>`` holds the owner of
the claim and expires with it (``PX``); ``flight:answer:<key>`` holds the sealed answer and
expires after ``keep`` seconds. Claiming and finishing are Lua scripts (atomic); waiting
polls both keys every :data:`POLL` seconds.
"""

from __future__ import annotations

import time
from typing import Any

import redis

POLL = 0.02

# KEYS: lease, answer. ARGV: owner, lease ms. → {answer} | {1} (claimed) | {} (busy)
_CLAIM = """
local answer = redis.call('GET', KEYS[2])
if answer then return {answer} end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1} end
return {}
"""
# KEYS: lease, answer. ARGV: owner, answer ('' for none: any kept one is dropped), keep ms.
_FINISH = """
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
else redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


class RedisFlights:
    """The single-flight methods of a Redis store (``client``, keys under ``prefix``)."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.client, self.prefix = client, prefix
        self._claim = client.register_script(_CLAIM)
        self._finish = client.register_script(_FINISH)

    def _keys(self, key: str) -> list[str]:
        return [f"{self.prefix}flight:lease:{key}", f"{self.prefix}flight:answer:{key}"]

    def claim_refresh(self, key: str, owner: str, lease: float) -> tuple[bool, bytes | None]:
        found: list[Any] = self._claim(keys=self._keys(key), args=[owner, _ms(lease)])
        if not found:
            return False, None
        if isinstance(found[0], bytes):
            return False, found[0]
        return True, None

    def await_refresh(self, key: str, wait: float) -> bytes | None:
        lease, answer = self._keys(key)
        deadline = time.monotonic() + wait
        while True:
            pipe = self.client.pipeline(transaction=False)
            pipe.get(answer)
            pipe.exists(lease)
            kept, held = pipe.execute()
            if kept is not None:
                return bytes(kept)
            if not held or time.monotonic() >= deadline:
                return None
            time.sleep(POLL)

    def finish_refresh(self, key: str, owner: str, answer: bytes | None, keep: float) -> None:
        self._finish(keys=self._keys(key), args=[owner, answer or b"", _ms(keep)])
