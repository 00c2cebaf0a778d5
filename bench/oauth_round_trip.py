"""The full OpenID Connect sign-in round trip against a local OP, and the engine's share of it.

The OP is the tests' real one (npm ``oidc-provider`` under node, on 127.0.0.1). The app is
an :class:`~io_bindings.anyio.AuthApp` in this process (httpx's ASGI transport; no server
in between), with one ``oidc`` provider: ``client_secret_basic``, PKCE, state and nonce. The
browser is one ``httpx.AsyncClient`` for both (the app mounted at ``http://app.test``); its
cookies are cleared before each trip, so every trip logs in and consents again:

    GET csrf → POST signin/op → OP login → OP consent → GET callback/op → GET session

The engine's share is the time spent inside ``flow.next_action()`` and ``flow.send()``
(``Auth.respond`` less ``Auth.perform``, timed in process), over the whole trip's wall time.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

from io_bindings._deadlines import Budget
from io_bindings.anyio import Auth, AuthApp
from sansio_auth import AuthConfig, Request, Response
from sansio_auth.events import Action, Event
from tests.oidc_op.provider import OpenIDProvider, start_openid_provider

ROUND_TRIPS = 20
APP = "http://app.test"
"""The app's origin: the OP's static clients redirect to ``http://app.test/auth/callback/op``."""
SECRET = "bench-oauth-secret-0123456789abcdef0123456789"


class EngineTimer:
    """Adds up the time ``auth`` spends in the engine: serving a request
    (``serve_request``, what the ASGI app calls) but not performing."""

    def __init__(self, auth: Auth) -> None:
        self.engine_seconds = 0.0
        serve_request, perform = auth.serve_request, auth.perform
        clock = time.perf_counter

        async def timed_perform(action: Action, budget: Budget | None = None) -> Event:
            start = clock()
            try:
                return await perform(action, budget)
            finally:
                self.engine_seconds -= clock() - start

        async def timed_serve_request(request: Request, where: str) -> Response:
            start = clock()
            try:
                return await serve_request(request, where)
            finally:
                self.engine_seconds += clock() - start

        auth.perform = timed_perform  # type: ignore[method-assign]
        auth.serve_request = timed_serve_request  # type: ignore[method-assign]


@dataclass(frozen=True)
class RoundTrips:
    """Medians over :data:`ROUND_TRIPS` sign-ins, in seconds, and the engine's share."""

    total: float
    engine: float
    engine_share: float


async def _sign_in(browser: httpx.AsyncClient, op: OpenIDProvider) -> None:
    """One round trip; fails loudly unless it ends signed in."""
    csrf = (await browser.get(f"{APP}/auth/csrf")).json()["csrfToken"]
    form = {"csrfToken": csrf, "callbackUrl": f"{APP}/welcome"}
    start = await browser.post(f"{APP}/auth/signin/op", data=form)
    if start.status_code != 302:
        raise RuntimeError(f"sign-in did not redirect: {start.status_code} {start.text[:200]}")
    answer = await op.alogin(browser, start.headers["location"])
    callback = await answer.asend(browser)
    if callback.headers.get("location") != f"{APP}/welcome":
        raise RuntimeError(f"the callback failed: {callback.headers.get('location')}")
    session = (await browser.get(f"{APP}/auth/session")).json()
    if not session or session["user"]["email"] != op.account.email:
        raise RuntimeError(f"not signed in: {session!r}")


async def _measure(op: OpenIDProvider, provider: dict[str, Any]) -> RoundTrips:
    app = AuthApp(AuthConfig(secret=SECRET, trust_host=True, providers=[provider]), env={})
    auth = app.auth
    timer = EngineTimer(auth)
    totals: list[float] = []
    shares: list[float] = []
    engine: list[float] = []
    mounts = {APP: httpx.ASGITransport(app=app)}
    async with httpx.AsyncClient(mounts=mounts, trust_env=False, timeout=30) as browser:
        await _sign_in(browser, op)  # warm-up: discovery and JWKS cached, connections open
        for _ in range(ROUND_TRIPS):
            browser.cookies.clear()
            timer.engine_seconds = 0.0
            start = time.perf_counter()
            await _sign_in(browser, op)
            total = time.perf_counter() - start
            totals.append(total)
            engine.append(timer.engine_seconds)
            shares.append(timer.engine_seconds / total)
    await auth.aclose()
    return RoundTrips(
        total=statistics.median(totals),
        engine=statistics.median(engine),
        engine_share=statistics.median(shares),
    )


def oauth_round_trips() -> RoundTrips:
    """Start the local OP, run the round trips on asyncio, stop the OP."""
    with start_openid_provider() as op:
        client = op.client("client_secret_basic")
        provider = op.provider_config(client, checks=["pkce", "state", "nonce"])
        return anyio.run(_measure, op, provider)


def oauth_rows() -> list[tuple[str, float]]:
    """The bench table's rows: round trips per second, and engine time per round trip."""
    trips = oauth_round_trips()
    return [
        (f"OAuth sign-in round trip, local OP, in-process app, median of {ROUND_TRIPS}",
         1 / trips.total),
        (f"OAuth round trip's time in the engine (flow steps): {trips.engine_share:.1%} of it",
         1 / trips.engine),
    ]  # fmt: skip
