"""Requests per second of the fleet (through the balancer) against one node with as many
workers (directly), for a session read of each site, with :mod:`bench.load`'s generator
(wrk where installed, else its asyncio client), nothing pinned, in alternating rounds.

Each figure reads a session signed in just before, measured for less time than its access
token takes to come due (the soak's tokens are due 5 s after they are issued): a session read
that refreshes is another request, with a call to the provider. Both run on the same machine
with the same stores; on a 2-core machine both figures are what two cores can do, and the
ratio is what the balancer's hop costs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import anyio
import msgspec

from bench.load import Target, first_visit, requests_per_second

from .app import PREFIXES
from .fleet import Fleet, Node, _distinct_ports

SESSION_COOKIE = "authjs.session-token"


def fresh_cookie(fleet: Fleet, strategy: str) -> str:
    """The session cookie of a new sign-in on the ``strategy`` site, as ``name=value``."""
    from .workload import FleetBrowser, FleetTally, Outages, World

    async def sign_in() -> str:
        world = World(fleet.url, list, fleet.op, Outages(), FleetTally(), 0, 0)
        browser = FleetBrowser(world, strategy, f"{strategy}-throughput")
        await browser.sign_in()
        cookie = browser.session_cookie()
        await browser.http.aclose()
        assert cookie is not None
        return f"{SESSION_COOKIE}={cookie}"

    return anyio.run(sign_in)


def session_reads(
    fleet: Fleet, bases: Mapping[str, str], seconds: float, rounds: int, *, pin: bool = False
) -> dict[str, float]:
    """``"<strategy> <name>"`` → the best of ``rounds`` figures of ``GET session`` at each
    base URL of ``bases`` (name → URL), each on a fresh sign-in, alternating."""
    seconds = min(seconds, fleet.options.access_token_ttl - fleet.options.refresh_skew - 1.5)
    figures: dict[str, list[float]] = {}
    measure: Callable[[Target, float], float] = requests_per_second
    for _ in range(rounds):
        for strategy, prefix in PREFIXES.items():
            for name, base in bases.items():
                cookie = fresh_cookie(fleet, strategy)
                found = first_visit(f"{base}{prefix}/auth/session", cookie, bool, keep=True)
                rate = measure(Target(found.url, found.cookie, pin=pin), seconds)
                figures.setdefault(f"{strategy} {name}", []).append(rate)
    return {key: max(rates) for key, rates in figures.items()}


def throughput(fleet: Fleet, seconds: float, rounds: int = 3) -> dict[str, float]:
    """``"<strategy> fleet"`` and ``"<strategy> one node"`` → requests per second."""
    workers = fleet.options.nodes * fleet.options.workers
    [port] = _distinct_ports(1)
    config = msgspec.structs.replace(fleet.nodes[0].config, node="one-node")
    single = Node("one-node", port, workers, fleet.directory, config)
    single.start()
    try:
        bases = {"fleet": fleet.url, "one node": single.url}
        return session_reads(fleet, bases, seconds, rounds)
    finally:
        single.stop()
