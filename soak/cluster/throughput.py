"""Requests per second of the fleet (through the balancer) against one node with as many
workers (directly), for a session read of each site, with :mod:`bench.load`'s generator
(wrk where installed, else its asyncio client), nothing pinned, in alternating rounds.

Both run on the same machine with the same stores; on a 2-core machine both figures are what
two cores can do, and the ratio is what the balancer's hop costs.
"""

from __future__ import annotations

import msgspec

from bench.load import Target, alternating, first_visit

from .app import PREFIXES
from .fleet import Fleet, Node, _distinct_ports

SESSION_COOKIE = "authjs.session-token"


def _cookie(fleet: Fleet, strategy: str) -> str:
    """A session cookie of a fresh sign-in on the ``strategy`` site."""
    import anyio

    from .workload import FleetBrowser, FleetTally, Outages, World

    async def sign_in() -> str:
        world = World(fleet.url, list, fleet.op, Outages(), FleetTally(), 0, 0)
        browser = FleetBrowser(world, strategy, f"{strategy}-throughput")
        await browser.sign_in()
        cookie = browser.session_cookie()
        await browser.http.aclose()
        assert cookie is not None
        return cookie

    return anyio.run(sign_in)


def throughput(fleet: Fleet, seconds: float, rounds: int = 3) -> dict[str, float]:
    """``"<strategy> fleet"`` and ``"<strategy> one node"`` → requests per second (the best of
    ``rounds`` alternating rounds, so both see the same machine load)."""
    cookies = {strategy: _cookie(fleet, strategy) for strategy in PREFIXES}
    workers = fleet.options.nodes * fleet.options.workers
    [port] = _distinct_ports(1)
    config = msgspec.structs.replace(fleet.nodes[0].config, node="one-node")
    single = Node("one-node", port, workers, fleet.directory, config)
    single.start()
    try:
        targets = {}
        for strategy, prefix in PREFIXES.items():
            cookie = f"{SESSION_COOKIE}={cookies[strategy]}"
            for name, base in (("fleet", fleet.url), ("one node", single.url)):
                found = first_visit(f"{base}{prefix}/auth/session", cookie, bool, keep=True)
                targets[f"{strategy} {name}"] = Target(found.url, found.cookie, pin=False)
        rates = alternating(targets, seconds, rounds, warm_up=True)
    finally:
        single.stop()
    return {name: max(figures) for name, figures in rates.items()}
