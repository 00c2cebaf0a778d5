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


async def probe(nodes: list[str], strategy: str, cookie: str) -> tuple[float | None, list[str]]:
    """Seconds until every node of ``nodes`` (their URLs) refuses the session ``cookie`` for
    good (``None``: not within :data:`PROBE_FOR`), and what each node that did not last
    answered.

    Each node is asked back to back, each time on a new connection (so that its workers all
    answer: each keeps its own revocation cache), for :data:`PROBE_MIN` seconds at least and
    until it refused :data:`REFUSED_IN_A_ROW` times in a row; it refused from the first of
    its last refusals. A node going down meanwhile is not one of "every node"."""
    start = time.monotonic()
    path = f"{PREFIXES[strategy]}/auth/session"
    headers = {"cookie": f"authjs.session-token={cookie}", "connection": "close"}
    refused: list[float] = []
    holdouts: list[str] = []

    async def ask(url: str, http: httpx.AsyncClient) -> None:
        streak, first, last = 0, 0.0, ""
        while (sent := time.monotonic()) - start < PROBE_FOR:
            if streak >= REFUSED_IN_A_ROW and sent - start >= PROBE_MIN:
                refused.append(first - start)
                return
            try:
                response = await http.get(url + path, headers=headers)
            except httpx.TransportError:
                return  # going down for a restart
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
    if holdouts or not refused:
        return None, holdouts
    return max(refused), []


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
