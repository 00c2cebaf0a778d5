"""Start the OP and the server, drive the workload, sample memory, and report."""

from __future__ import annotations

import json
import secrets
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import anyio
from live_server import free_port, serve, uvicorn_command

from tests.oidc_op.provider import OpenIDProvider, start_openid_provider

from .logs import classify
from .memory import Sample, rss_kib, slope_kib_per_minute
from .workload import Tally, browse

SECRET_BYTES = 32


@dataclass(frozen=True)
class Options:
    """How long (``seconds`` measured after ``warm_up`` seconds), how many browsers (one
    connection each), how often RSS is sampled, and how much growth fails the soak."""

    seconds: float
    connections: int = 64
    warm_up: float = 30.0
    sample_every: float = 5.0
    max_growth_kib: float = 8192.0
    """The most RSS may grow over the measured window, by its least-squares trend."""

    def __post_init__(self) -> None:
        if self.seconds <= 0 or self.warm_up < 0 or self.connections < 1:
            raise ValueError("the soak needs a positive duration and at least one connection")
        if not 0 < self.sample_every <= self.seconds / 2:
            raise ValueError("sample RSS at least twice within the measured window")


@dataclass(frozen=True)
class Report:
    """What the soak saw."""

    options: Options
    tally: Tally
    samples: list[Sample]
    refusals: dict[str, int]
    unexpected_log: list[str]

    @property
    def slope(self) -> float:
        """RSS trend over the measured window, KiB per minute."""
        return slope_kib_per_minute(self.samples)

    @property
    def growth_kib(self) -> float:
        """The trend's growth across the measured window."""
        return self.slope * (self.samples[-1].seconds - self.samples[0].seconds) / 60

    def failures(self) -> list[str]:
        """Why the soak failed (empty when it passed)."""
        tally, problems = self.tally, []
        if tally.server_errors:
            problems.append(f"{sum(tally.server_errors.values())} responses were 5xx")
        if self.unexpected_log:
            problems.append(f"{len(self.unexpected_log)} unexpected log entries")
        if tally.mismatches or tally.transport_errors:
            problems.append("some answers were wrong or did not come")
        if self.growth_kib > self.options.max_growth_kib:
            problems.append(
                f"RSS grows: {self.growth_kib:.0f} KiB over the window "
                f"(at most {self.options.max_growth_kib:.0f})"
            )
        return problems

    def _unexpected_kinds(self) -> Counter[str]:
        """The unexpected log entries by their first line."""
        return Counter(entry.partition("\n")[0] for entry in self.unexpected_log)

    def text(self) -> str:
        """The report, for people."""
        tally, first, last = self.tally, self.samples[0], self.samples[-1]
        lines = [
            f"soak: {self.options.connections} connections, {self.options.warm_up:.0f} s warm-up"
            f" + {self.options.seconds:.0f} s measured",
            f"requests: {sum(tally.requests.values())}",
            *(f"  {kind:<20} {n}" for kind, n in tally.requests.most_common()),
            "scenarios: " + ", ".join(f"{k} {n}" for k, n in tally.scenarios.most_common()),
            f"5xx: {sum(tally.server_errors.values())} {dict(tally.server_errors) or ''}",
            f"wrong answers: {dict(tally.mismatches)}; transport errors: "
            f"{dict(tally.transport_errors)}",
            *(f"  e.g. {example}" for example in tally.examples),
            f"expected refusals logged: {self.refusals}",
            f"unexpected log entries: {len(self.unexpected_log)}",
            *(f"  {n} x {first[:300]}" for first, n in self._unexpected_kinds().most_common(5)),
            f"RSS after warm-up {first.kib / 1024:.1f} MiB, at the end {last.kib / 1024:.1f} MiB, "
            f"slope {self.slope:+.1f} KiB/min over {len(self.samples)} samples "
            f"(trend {self.growth_kib:+.0f} KiB over the window)",
        ]
        failures = self.failures()
        lines.append("FAILED: " + "; ".join(failures) if failures else "passed")
        return "\n".join(lines)


async def _drive(
    url: str, op: OpenIDProvider, pid: int, options: Options
) -> tuple[Tally, list[Sample]]:
    tally = Tally()
    start = time.monotonic() + options.warm_up
    until = start + options.seconds
    samples: list[Sample] = []
    async with anyio.create_task_group() as browsers:
        for seed in range(options.connections):
            browsers.start_soon(browse, url, op, tally, seed, until)
        await anyio.sleep(options.warm_up)
        while (now := time.monotonic()) < until:
            samples.append(Sample(now - start, rss_kib(pid)))
            await anyio.sleep(min(options.sample_every, max(until - time.monotonic(), 0)))
        samples.append(Sample(time.monotonic() - start, rss_kib(pid)))
    return tally, samples


def soak(options: Options) -> Report:
    """Run the soak (the OP and the server are started here and stopped at the end)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with (
        tempfile.TemporaryDirectory(prefix="soak-") as directory,
        start_openid_provider([f"{url}/auth/callback/op"]) as op,
    ):
        client = op.client("client_secret_basic")
        config = Path(directory) / "config.json"
        settings = {
            "secret": secrets.token_hex(SECRET_BYTES),
            "database": str(Path(directory) / "auth.db"),
            "issuer": op.issuer,
            "client_id": client.client_id,
            "client_secret": client.client_secret,
        }
        config.write_text(json.dumps(settings))
        command = uvicorn_command("soak.app:app", port)
        with serve(command, port, env={"SOAK_CONFIG": str(config)}) as live:
            tally, samples = anyio.run(_drive, url, op, live.process.pid, options)
            log = live.log
    refusals, unexpected = classify(log)
    return Report(options, tally, samples, refusals, unexpected)
