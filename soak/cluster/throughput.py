"""Requests per second of the fleet (through the balancer) against one node with as many
workers (directly), for a session read of each site, with :mod:`bench.load`'s generator
(wrk where installed, else its asyncio client), nothing pinned.

The fleet's nodes are stopped first (PostgreSQL and Redis stay), so both are measured on the
same machine with the same stores; on a 2-core machine both figures are what two cores can do,
and the ratio is what the balancer's hop and the shared stores cost.
"""

from __future__ import annotations

import msgspec

from bench.load import Target, first_visit, requests_per_second

from .app import PREFIXES
from .fleet import Fleet, Node, _distinct_ports

SESSION_COOKIE = "authjs.session-token"


def _cookie(fleet: Fleet, strategy: str) -> str:
    """A session cookie of a fresh sign-in on the ``strategy`` site."""
    import anyio

    from .workload import FleetBrowser, FleetTally, Outages, World

    async def sign_in() -> str:
        world = World(fleet.url, list, fleet.op, Outages(), FleetTally(), 0)
        browser = FleetBrowser(world, strategy, f"{strategy}-throughput")
        await browser.sign_in()
        cookie = browser.session_cookie()
        await browser.http.aclose()
        assert cookie is not None
        return cookie

    return anyio.run(sign_in)


def _rate(url: str, cookie: str, seconds: float) -> float:
    target = first_visit(url, f"{SESSION_COOKIE}={cookie}", lambda body: bool(body), keep=True)
    return requests_per_second(Target(target.url, target.cookie, pin=False), seconds)


def throughput(fleet: Fleet, seconds: float) -> dict[str, float]:
    """``"<strategy> fleet"`` and ``"<strategy> one node"`` → requests per second."""
    cookies = {strategy: _cookie(fleet, strategy) for strategy in PREFIXES}
    rates = {}
    for strategy, prefix in PREFIXES.items():
        url = f"{fleet.url}{prefix}/auth/session"
        rates[f"{strategy} fleet"] = _rate(url, cookies[strategy], seconds)
    for node in fleet.nodes:
        node.stop()
    workers = fleet.options.nodes * fleet.options.workers
    [port] = _distinct_ports(1)
    config = msgspec.structs.replace(fleet.nodes[0].config, node="one-node")
    single = Node("one-node", port, workers, fleet.directory, config)
    single.start()
    try:
        for strategy, prefix in PREFIXES.items():
            url = f"{single.url}{prefix}/auth/session"
            rates[f"{strategy} one node"] = _rate(url, cookies[strategy], seconds)
    finally:
        single.stop()
    return rates
