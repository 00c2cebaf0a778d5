"""Session checks in process: a :class:`Request` with a valid cookie, run to a :class:`Response`."""

from __future__ import annotations

import time

import anyio

from io_bindings.anyio import Auth
from sansio_auth import NotAnAuthRoute, Request, Response

from .app import USER, config, session_cookie

BATCH = 200


def _check(response: Response, *, reissued: bool) -> None:
    """Fail loudly unless the run measured what it claims to."""
    if response.status != 200 or response.json()["user"]["name"] != USER["name"]:
        raise RuntimeError(f"not a session: {response.status} {response.body!r}")
    if bool(response.cookies) != reissued:
        raise RuntimeError(f"expected the cookie {'re-issued' if reissued else 'kept'}")


async def checks_per_second(auth: Auth, cookie: str, seconds: float, *, reissued: bool) -> float:
    """``GET session`` with ``cookie`` through ``auth``'s engine and async driver, per second."""
    engine, perform = auth.engine, auth.perform
    request = Request(
        method="GET",
        url="http://127.0.0.1:8000/auth/session",
        headers={"host": "127.0.0.1:8000", "cookie": cookie},
    )
    warm_up = engine.handle(request)
    assert not isinstance(warm_up, NotAnAuthRoute)
    _check(await warm_up.run(perform), reissued=reissued)
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(BATCH):
            flow = engine.handle(request)
            assert not isinstance(flow, NotAnAuthRoute)
            await flow.run(perform)
        count += BATCH
    return count / (time.perf_counter() - start)


async def _run(update_age: int, seconds: float) -> float:
    auth = Auth(config(update_age), env={})
    return await checks_per_second(auth, session_cookie(), seconds, reissued=update_age == 0)


def session_checks_per_second(update_age: int, seconds: float) -> float:
    """Session checks per second on asyncio for a config with ``update_age``."""
    return anyio.run(_run, update_age, seconds)
