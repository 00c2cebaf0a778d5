"""The faults the fleet goes through while the workload runs, and the secret roll.

Each is an async function of the :class:`Stage` (the fleet, the browsers' world and the
sentinels: browsers that sign in once and must stay signed in) that records what it did as
:class:`Event` s. Blocking work (starting a node, stopping a server) runs in a worker thread.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial

import anyio
import anyio.to_thread
import httpx
from db_servers import PostgresServer, RedisServer

from .app import PREFIXES
from .fleet import Fleet, Node, new_secret
from .workload import FleetBrowser, World

STALL_TIMEOUT = 30.0
"""Seconds to wait for the victim to start a refresh before giving up on the kill."""
RECOVERY_TIMEOUT = 60.0


@dataclass
class Event:
    """Something a fault did, at ``at`` (``time.monotonic()``), taking ``seconds``."""

    what: str
    at: float
    seconds: float = 0.0


@dataclass
class Stage:
    fleet: Fleet
    world: World
    sentinels: list[FleetBrowser]
    events: list[Event] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    """Sentinel sessions not signed in after a fault (each: which and when)."""
    idle_at_most: float = 30.0
    """The longest a browser goes without a request: before the old secret is removed, every
    browser must have had its cookie re-issued with the new one (in a real fleet, keep the
    old secret for the sessions' ``max_age``)."""

    def note(self, what: str, since: float) -> None:
        self.events.append(Event(what, since, time.monotonic() - since))


async def _in_thread(function: Callable[[], object]) -> None:
    await anyio.to_thread.run_sync(function)


async def not_signed_in(stage: Stage, sentinel: FleetBrowser) -> str | None:
    """Why a node (asked directly) does not answer ``sentinel``'s session as its user's, or
    ``None`` when every node up does."""
    cookie = sentinel.session_cookie()
    if cookie is None:
        return "no cookie"
    path = f"{PREFIXES[sentinel.strategy]}/auth/session"
    # a read may wait for a refresh whose holder was killed: up to its lease (20 s)
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        for url in stage.world.nodes():
            try:
                response = await http.get(
                    url + path, headers={"cookie": f"authjs.session-token={cookie}"}
                )
            except httpx.HTTPError as error:
                return f"{url}: {type(error).__name__}"
            session = response.json() if response.status_code == 200 else None
            if not session or session["user"]["email"] != sentinel.expected:
                return f"{url}: {response.status_code} {response.text[:80]}"
    return None


async def until_recovered(stage: Stage) -> None:
    """Wait until every node answers every sentinel's session again."""
    deadline = time.monotonic() + RECOVERY_TIMEOUT
    for sentinel in stage.sentinels:
        while (why := await not_signed_in(stage, sentinel)) is not None:
            if time.monotonic() > deadline:
                stage.lost.append(f"{sentinel.user} after recovery ({why})")
                return
            await anyio.sleep(0.2)


async def check_sentinels(stage: Stage, when: str) -> None:
    """Every sentinel still signed in, on every node."""
    for sentinel in stage.sentinels:
        why = await not_signed_in(stage, sentinel)
        if why is not None:
            stage.lost.append(f"{sentinel.user} {when} ({why})")


async def kill_mid_refresh(stage: Stage, victim: Node, down: float = 2.0) -> None:
    """``kill -9`` of ``victim`` while it is waiting for a refresh-token grant (its request
    held, see :class:`soak.cluster.app.TaggedTransport`), then its restart."""
    stalled = victim.stall.with_suffix(".stalled")
    stalled.unlink(missing_ok=True)
    victim.stall.touch()
    since = time.monotonic()
    try:
        with anyio.move_on_after(STALL_TIMEOUT):
            while not stalled.exists():  # noqa: ASYNC110 (another process writes it)
                await anyio.sleep(0.02)
        mid_refresh = stalled.exists()
        victim.kill()
    finally:
        victim.stall.unlink(missing_ok=True)
    stage.note(f"kill -9 {victim.name}" + (" mid-refresh" if mid_refresh else ""), since)
    await anyio.sleep(down)
    since = time.monotonic()
    await _in_thread(victim.start)
    stage.note(f"restart {victim.name}", since)
    await check_sentinels(stage, f"after the kill of {victim.name}")


async def restart_postgres(stage: Stage, down: float = 3.0) -> None:
    """PostgreSQL stopped, ``down`` seconds, started again."""
    await _stopped(stage, stage.fleet.postgres, down, "PostgreSQL restart", "PostgreSQL restarted")


async def stop_redis(stage: Stage, down: float = 10.0) -> None:
    """Redis stopped for ``down`` seconds, then started again (its data kept on disk)."""
    await _stopped(stage, stage.fleet.redis, down, "Redis stopped", f"Redis stopped {down:.0f} s")


async def _stopped(
    stage: Stage, server: PostgresServer | RedisServer, down: float, outage_name: str, note: str
) -> None:
    """``server`` stopped for ``down`` seconds and started again; the outage lasts until every
    node answers every sentinel again."""
    outage = stage.world.outages.begin(outage_name)
    await _in_thread(server.stop)
    await anyio.sleep(down)
    await _in_thread(server.start)
    await until_recovered(stage)
    outage.end = time.monotonic()
    stage.note(note, outage.start)


async def roll_secret(stage: Stage) -> None:
    """A new secret, node by node: first added last (every node can read what it will
    encrypt), then moved first (cookies are re-encrypted with it on their next read), and once
    every live cookie was re-issued (``update_age`` later), the old one removed."""
    fleet = stage.fleet
    old, new = fleet.secrets[0], new_secret()
    for phase, secrets in (("added", [old, new]), ("first", [new, old])):
        since = time.monotonic()
        for node in fleet.nodes:
            await _in_thread(partial(fleet.restart, node, secrets=secrets))
        stage.note(f"secret roll: new secret {phase} on every node", since)
    await anyio.sleep(stage.idle_at_most + 2)  # every browser reads its session meanwhile
    since = time.monotonic()
    for node in fleet.nodes:
        await _in_thread(partial(fleet.restart, node, secrets=[new]))
    fleet.secrets[:] = [new]
    stage.note("secret roll: old secret removed from every node", since)
    await check_sentinels(stage, "after the secret roll")


Fault = Callable[[Stage], Awaitable[None]]


async def run_schedule(stage: Stage, schedule: list[Fault], gap: float) -> None:
    """Each fault in turn, ``gap`` seconds of normal work after each."""
    for fault in schedule:
        await fault(stage)
        await anyio.sleep(gap)
