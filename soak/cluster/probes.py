"""Probes of the fleet's nodes, each asked directly (past the load balancer): how long until
every node refuses a revoked session, and which nodes still answer one."""

from __future__ import annotations

import time

import anyio
import httpx

from .app import NODE_HEADER, PREFIXES

REFUSAL_LIMIT = 1.0
"""Seconds within which every node must refuse a revoked session."""
PROBE_FOR = 10.0
"""Seconds a probe keeps trying before it reports the session was never refused."""
PROBE_MIN = REFUSAL_LIMIT + 0.5
"""Seconds every node is probed at least (past any revocation cache of 0.5 s)."""
REFUSED_IN_A_ROW = 3
"""Refusals in a row, each on a new connection (so both workers answer), that count as a
node refusing a session."""
DOWN_PAUSE = 0.05
"""Seconds between two attempts to reach a node that is down."""


async def probe(nodes: list[str], strategy: str, cookie: str) -> tuple[list[float], list[str]]:
    """How long each node of ``nodes`` (their URLs) that stayed up took to refuse the session
    ``cookie`` for good, and what each node that did not refuse within :data:`PROBE_FOR` last
    answered (none: every node refused).

    Each node is asked back to back, each time on a new connection (so that its workers all
    answer: each keeps its own revocation cache), for :data:`PROBE_MIN` seconds at least and
    until it refused :data:`REFUSED_IN_A_ROW` times in a row; it refused from the first of
    its last refusals. A node that goes down meanwhile (a rolling restart, a kill) is asked
    again once it is back, and must refuse too; how long it took is its restart's, not the
    revocation's, so it is not among the times."""
    start = time.monotonic()
    path = f"{PREFIXES[strategy]}/auth/session"
    headers = {"cookie": f"authjs.session-token={cookie}", "connection": "close"}
    refused: list[float] = []
    holdouts: list[str] = []

    async def ask(url: str, http: httpx.AsyncClient) -> None:
        streak, first, last, restarted = 0, 0.0, "", False
        while (sent := time.monotonic()) - start < PROBE_FOR:
            if streak >= REFUSED_IN_A_ROW and sent - start >= PROBE_MIN:
                if not restarted:
                    refused.append(first - start)
                return
            try:
                response = await http.get(url + path, headers=headers)
            except httpx.TransportError as error:
                streak, restarted, last = 0, True, f"{url}: down ({error!r})"
                await anyio.sleep(DOWN_PAUSE)
                continue
            if response.status_code == 200 and response.json() is None:
                streak, first = streak + 1, first if streak else sent
            else:
                streak = 0
                node = response.headers.get(NODE_HEADER)
                last = f"{node}: {response.status_code} {response.text[:120]}"
        holdouts.append(last)

    client = httpx.AsyncClient(timeout=10, trust_env=False)
    async with client as http, anyio.create_task_group() as group:
        for url in nodes:
            group.start_soon(ask, url, http)
    return refused, holdouts


async def signed_in_somewhere(nodes: list[str], strategy: str, cookie: str) -> list[str]:
    """The nodes of ``nodes`` (asked :data:`REFUSED_IN_A_ROW` times each) that still answer
    the session ``cookie``."""
    path = f"{PREFIXES[strategy]}/auth/session"
    headers = {"cookie": f"authjs.session-token={cookie}", "connection": "close"}
    found = []
    async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
        for url in nodes:
            for _ in range(REFUSED_IN_A_ROW):
                try:
                    response = await http.get(url + path, headers=headers)
                except httpx.TransportError:
                    break
                if response.status_code == 200 and response.json() is not None:
                    found.append(str(response.headers.get(NODE_HEADER)))
    return found
