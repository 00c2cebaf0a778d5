"""The cost of the revocation check on a JWT session read: the in-process session check
with ``session={"revocation": True}`` (memory adapter, answers memoised for the default
``revocation_cache_ttl``) against the same check without it, in alternating batches of one
run (so both see the same machine load); the cost is the median of the batches' ratios."""

from __future__ import annotations

import dataclasses
import statistics
import time

import anyio

from io_bindings.anyio import Auth
from io_bindings.db.memory import MemoryAdapter
from sansio_auth import NotAnAuthRoute, Request

from .app import DEFAULT_UPDATE_AGE, USER, config, session_cookie

BATCH = 100


async def _batch_seconds(auth: Auth, request: Request) -> float:
    start = time.perf_counter()
    for _ in range(BATCH):
        flow = auth.engine.handle(request)
        assert not isinstance(flow, NotAnAuthRoute)
        await flow.run(auth.perform)
    return time.perf_counter() - start


async def _measure(seconds: float) -> tuple[float, float]:
    base = config(DEFAULT_UPDATE_AGE)
    plain = Auth(base, env={})
    session = {"strategy": "jwt", "update_age": DEFAULT_UPDATE_AGE, "revocation": True}
    revocable = Auth(dataclasses.replace(base, adapter=MemoryAdapter(), session=session), env={})
    request = Request(
        method="GET",
        url="http://127.0.0.1:8000/auth/session",
        headers={"host": "127.0.0.1:8000", "cookie": session_cookie()},
    )
    for auth in (plain, revocable):  # warm up, and check each measures a session read
        flow = auth.engine.handle(request)
        assert not isinstance(flow, NotAnAuthRoute)
        response = await flow.run(auth.perform)
        if response.status != 200 or response.json()["user"]["name"] != USER["name"]:
            raise RuntimeError(f"not a session: {response.status} {response.body!r}")
    ratios: list[float] = []
    spent, checked = 0.0, 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or not ratios:
        without = await _batch_seconds(plain, request)
        with_check = await _batch_seconds(revocable, request)
        ratios.append(with_check / without)
        spent, checked = spent + with_check, checked + BATCH
    return checked / spent, statistics.median(ratios) - 1


def revocation_rows(seconds: float) -> list[tuple[str, float]]:
    """The session check with revocation on; its name gives the extra cost per read."""
    rate, cost = anyio.run(_measure, seconds)
    return [(f"session check, revocation on (cached): {cost:+.1%} per read", rate)]
