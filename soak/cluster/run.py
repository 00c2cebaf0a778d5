"""The cluster soak from start to report: the fleet up, the browsers and the faults for the
measured time, then what the stores, the OP's ledger, the logs and the balancer show, and the
fleet's throughput against one node with as many workers."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from sansio_auth import jwt
from soak.memory import Sample
from soak.workload import UNKNOWN
from tests.oidc_op.provider import ledger_digest

from . import checks, logs
from .app import PREFIXES
from .faults import (
    Fault,
    Stage,
    check_sentinels,
    kill_mid_refresh,
    restart_postgres,
    roll_secret,
    run_schedule,
    stop_redis,
)
from .fleet import Fleet, FleetOptions, running_fleet
from .report import Report
from .throughput import throughput
from .workload import (
    FleetBrowser,
    FleetTally,
    Outages,
    World,
    browse,
    run_scenario,
    session_read,
)

SESSION_COOKIE = "authjs.session-token"


@dataclass(frozen=True)
class Options:
    """How long, how many browsers, when the faults come, how memory is judged."""

    seconds: float
    """The workload's length, at least (the faults and the tail may make it longer)."""
    users: int = 6
    """Users per site; each has two browsers."""
    sentinels: int = 2
    """Sentinel users per site (one browser each, signed in once)."""
    first_fault: float = 10.0
    """Seconds of work before the first fault."""
    gap: float = 3.0
    """Seconds of normal work after each fault."""
    tail: float = 20.0
    """Seconds of steady work after the faults, at least (memory is judged there)."""
    warm_up: float = 10.0
    """Seconds after a node (re)starts before its memory is measured."""
    sample_every: float = 2.0
    max_growth_kib: float = 16 * 1024.0
    """The most a node's RSS trend may grow over its measured window."""
    throughput_seconds: float = 3.0
    throughput_rounds: int = 3
    fleet: FleetOptions = field(default_factory=FleetOptions)
    keep_logs: Path | None = None
    """Where to copy the fleet's logs (each node's, the balancer's, the OP's) and the report
    when the soak fails (not the nodes' configurations: they hold the secrets); ``None``:
    nowhere."""

    def schedule(self) -> list[Fault]:
        """The faults, one after the other: the secret roll first (it restarts every node),
        then the kill, PostgreSQL, Redis."""
        return [
            roll_secret,
            lambda stage: kill_mid_refresh(stage, stage.fleet.nodes[-1]),
            restart_postgres,
            stop_redis,
        ]


@dataclass
class Observed:
    """What the run saw while it ran."""

    tally: FleetTally
    stage: Stage
    samples: dict[str, list[Sample]]
    held: dict[str, str | None]
    roll_left_old: list[str]
    seconds: float


async def _sentinel(browser: FleetBrowser) -> None:
    """Read the session every second; it must always be there (outside outages)."""
    while browser.world.running():
        await run_scenario(browser, "sentinel read", session_read)
        if browser.expected == UNKNOWN:
            browser.expected = f"{browser.user}@example.test"
        await anyio.sleep(1.0)


async def _sample(
    fleet: Fleet, world: World, samples: dict[str, list[Sample]], every: float
) -> None:
    """Each node's RSS every ``every`` seconds (at ``time.monotonic()``)."""
    while world.running():
        for node in fleet.nodes:
            if node.process is not None:
                samples[node.name].append(Sample(time.monotonic(), node.rss_kib()))
        await anyio.sleep(every)


def _held_by(browser: FleetBrowser, secrets: list[str]) -> tuple[str | None, bool]:
    """The digest of the refresh token in ``browser``'s JWT cookie (``None``: refused), and
    whether the cookie is still encrypted with a removed secret."""
    cookie = browser.session_cookie()
    assert cookie is not None
    try:
        token = jwt.decode(cookie, secrets, SESSION_COOKIE, now=time.time())
    except jwt.InvalidToken:
        return None, True
    refresh_token = token.get("oauth", {}).get("refresh_token")
    return (ledger_digest(refresh_token) if refresh_token else None), False


async def drive(fleet: Fleet, options: Options) -> Observed:
    """The browsers, the sentinels, the faults and the memory samples, for ``seconds``."""
    tally = FleetTally()
    fleet_options = fleet.options
    world = World(
        fleet.url,
        fleet.live_urls,
        fleet.op,
        Outages(),
        tally,
        fleet_options.update_age,
        fleet_options.access_token_ttl,
    )
    browsers = [
        FleetBrowser(world, strategy, f"{strategy}-user-{n}")
        for strategy in PREFIXES
        for n in range(options.users)
        for _ in range(2)
    ]
    sentinels = [
        FleetBrowser(world, strategy, f"{strategy}-sentinel-{n}")
        for strategy in PREFIXES
        for n in range(options.sentinels)
    ]
    for sentinel in sentinels:
        await sentinel.sign_in()
    idle = max(fleet_options.update_age, fleet_options.access_token_ttl) + 1
    stage = Stage(fleet, world, sentinels, idle_at_most=idle + 3)
    start = time.monotonic()
    samples: dict[str, list[Sample]] = {node.name: [] for node in fleet.nodes}

    async def faults_then_tail() -> None:
        await anyio.sleep(options.first_fault)
        await run_schedule(stage, options.schedule(), options.gap)
        world.until = max(start + options.seconds, time.monotonic() + options.tail)

    async with anyio.create_task_group() as group:
        for seed, browser in enumerate(browsers):
            group.start_soon(browse, browser, seed)
        for sentinel in sentinels:
            group.start_soon(_sentinel, sentinel)
        group.start_soon(_sample, fleet, world, samples, options.sample_every)
        group.start_soon(faults_then_tail)
    await check_sentinels(stage, "at the end")
    held: dict[str, str | None] = {}
    left_old = []
    for number, browser in enumerate([*browsers, *sentinels]):
        await run_scenario(browser, "last read", session_read)  # what it holds, at last
        if browser.strategy == "jwt" and browser.session_cookie():
            held[f"{browser.user} #{number}"], old = _held_by(browser, fleet.secrets)
            if old:
                left_old.append(browser.user)
        await browser.http.aclose()
    for email, refresh_token in checks.database_held_tokens(fleet.databases["database"]).items():
        held[email] = ledger_digest(refresh_token) if refresh_token else None
    return Observed(tally, stage, samples, held, left_old, time.monotonic() - start)


def soak(options: Options) -> Report:
    """Run the cluster soak; its report."""
    with running_fleet(options.fleet) as fleet:
        wall_offset = time.time() - time.monotonic()
        observed = anyio.run(drive, fleet, options)
        found = checks.rotations(fleet.op.ledger())
        duplicates = {s: checks.duplicates(dsn) for s, dsn in fleet.databases.items()}
        counts = {s: checks.counts(dsn) for s, dsn in fleet.databases.items()}
        balancer = fleet.balancer.servers()
        balancer_log = fleet.balancer.unusual()
        op_errors = [line for line in fleet.op.log.splitlines() if "error" in line]
        node_logs = {
            node.name: logs.classify(node.log, observed.stage.world.outages, wall_offset)
            for node in fleet.nodes
        }
        starts = {node.name: node.started for node in fleet.nodes}
        rates = throughput(fleet, options.throughput_seconds, options.throughput_rounds)
        details: dict[str, Any] = {
            "duplicates": duplicates,
            "counts": counts,
            "balancer": balancer,
            "balancer_log": balancer_log,
            "op_errors": op_errors,
        }
        report = Report(options, observed, found, node_logs, starts, rates, details)
        if options.keep_logs is not None and report.failures():
            shutil.copytree(
                fleet.directory,
                options.keep_logs,
                ignore=shutil.ignore_patterns("*.json"),
                dirs_exist_ok=True,
            )
            (options.keep_logs / "op.log").write_text(fleet.op.log)
            (options.keep_logs / "report.txt").write_text(report.text())
    return report
