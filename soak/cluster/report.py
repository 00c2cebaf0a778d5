"""The cluster soak's figures, each with the check that fails the soak, and the text printed at
the end."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from soak.memory import Sample, slope_kib_per_minute

from .checks import Rotations, held_tokens
from .logs import NodeLog
from .probes import REFUSAL_LIMIT

if TYPE_CHECKING:
    from .run import Observed, Options


def growth_kib(samples: list[Sample], since: float) -> tuple[float, int, int] | None:
    """The RSS trend's growth over the samples taken at or after ``since``, with the first and
    last figure (KiB); ``None`` when there are too few to judge."""
    window = [s for s in samples if s.seconds >= since]
    if len(window) < 3 or window[-1].seconds - window[0].seconds <= 0:
        return None
    slope = slope_kib_per_minute(window)
    return slope * (window[-1].seconds - window[0].seconds) / 60, window[0].kib, window[-1].kib


@dataclass
class Report:
    """What the cluster soak saw and measured."""

    options: Options
    observed: Observed
    rotations: Rotations
    logs: dict[str, NodeLog]
    starts: dict[str, float]
    """Node → ``time.monotonic()`` of its last start."""
    rates: dict[str, float]
    details: dict[str, Any]

    def memory(self) -> dict[str, tuple[float, int, int] | None]:
        """Node → (growth, first, last) over its measured window."""
        warm = self.options.warm_up
        return {
            name: growth_kib(samples, self.starts[name] + warm)
            for name, samples in self.observed.samples.items()
        }

    @property
    def _per_minute(self) -> int:
        return max(1, round(60 / self.options.sample_every))

    def held(self) -> dict[str, list[str]]:
        return held_tokens(self.rotations, self.observed.held)

    def failures(self) -> list[str]:
        """Why the soak failed (empty when it passed)."""
        tally, problems = self.observed.tally, []
        if tally.server_errors:
            problems.append(f"{sum(tally.server_errors.values())} responses were 5xx")
        if tally.mismatches or tally.transport_errors:
            problems.append("some answers were wrong or did not come (outside store outages)")
        unexpected = sum(len(log.unexpected) for log in self.logs.values())
        if unexpected:
            problems.append(f"{unexpected} unexpected log entries")
        if self.rotations.reused:
            problems.append(f"{len(self.rotations.reused)} refresh tokens sent more than once")
        if self.rotations.refused:
            problems.append(f"{len(self.rotations.refused)} refresh grants refused by the OP")
        held = self.held()
        for state in ("spent", "unknown", "refused"):
            if held.get(state):
                problems.append(f"{len(held[state])} sessions hold a {state} refresh token")
        slow = [k for k, v in self.observed.tally.refusals.items() if max(v) > REFUSAL_LIMIT]
        if slow:
            problems.append(f"not refused everywhere within {REFUSAL_LIMIT} s: {slow}")
        missing = {"revoke", "back-channel"} - {k.split()[0] for k in tally.refusals}
        if missing:
            problems.append(f"never measured: {sorted(missing)}")
        for strategy, found in self.details["duplicates"].items():
            if found["emails"] or found["accounts"]:
                problems.append(f"duplicated users or accounts ({strategy}): {found}")
        if self.observed.stage.lost:
            problems.append(f"sessions lost: {self.observed.stage.lost}")
        if self.observed.roll_left_old:
            left = self.observed.roll_left_old
            problems.append(f"cookies still under the removed secret: {left}")
        limit = self.options.max_growth_kib
        for name, judged in self.memory().items():
            if judged is None:
                problems.append(f"{name}: too few memory samples")
            elif judged[0] > limit:
                problems.append(f"{name}: RSS grows {judged[0]:.0f} KiB (at most {limit:.0f})")
        return problems

    def text(self) -> str:
        """The report, for people."""
        tally, rotations, observed = self.observed.tally, self.rotations, self.observed
        fleet = self.options.fleet
        lines = [
            f"cluster soak: {fleet.nodes} nodes x {fleet.workers} workers behind HAProxy, "
            f"{observed.seconds:.0f} s measured",
            f"requests: {sum(tally.requests.values())} "
            + ", ".join(f"{k} {n}" for k, n in tally.requests.most_common()),
            "scenarios: " + ", ".join(f"{k} {n}" for k, n in tally.scenarios.most_common()),
            "faults: "
            + "; ".join(
                f"t+{e.at - observed.stage.world.started:.0f}s {e.what} ({e.seconds:.1f} s)"
                for e in sorted(observed.stage.events, key=_at)
            ),
            f"5xx: {sum(tally.server_errors.values())} {dict(tally.server_errors) or ''}",
            f"fail-closed answers while a store was down: {sum(tally.fail_closed.values())}",
            *(f"  {k}: {n}" for k, n in sorted(tally.fail_closed.items())),
            *(f"  e.g. {e}" for e in tally.fail_closed_examples),
            f"fail-closed log entries: {_merged(log.fail_closed for log in self.logs.values())}",
            f"wrong answers: {dict(tally.mismatches)}; transport errors: "
            f"{dict(tally.transport_errors)}; sent again on a new connection (as browsers do "
            f"when a kept-alive one closes unanswered): {tally.resent}",
            *(f"  e.g. {example}" for example in tally.examples),
            f"unexpected log entries: {sum(len(log.unexpected) for log in self.logs.values())}",
            *(
                f"  {name}: {entry[:400]}"
                for name, log in self.logs.items()
                for entry in log.unexpected[:3]
            ),
            f"refresh-token rotations: {rotations.refreshes} (by node "
            f"{dict(sorted(rotations.by_node.items()))}); sent more than once: "
            f"{len(rotations.reused)}; refused by the OP: {len(rotations.refused)}",
            "sessions by the refresh token they hold: "
            + ", ".join(f"{k} {len(v)}" for k, v in sorted(self.held().items())),
            f"access-token bursts: {dict(tally.bursts)}",
            "revoked sessions refused on every node within (s): "
            + "; ".join(
                f"{k}: n={len(v)} median {statistics.median(v):.2f} max {max(v):.2f}"
                for k, v in sorted(tally.refusals.items())
            ),
            "revoked sessions refused on every node, each restarted while probed (untimed): "
            f"{tally.refused_untimed}",
            f"renewals after update_age: {dict(tally.renewals)}",
            f"sessions ended by a revocation of their user that raced with them: {tally.raced}",
            "other browsers' sessions refused on every node after their user's revocation: "
            f"{tally.others_refused}",
            f"callbacks on another node than their sign-in: {tally.callbacks['elsewhere']} of "
            f"{sum(tally.callbacks.values())}",
            f"duplicated users/accounts: {self.details['duplicates']}",
            f"rows: {self.details['counts']}",
            f"sessions lost across faults: {len(observed.stage.lost)} {observed.stage.lost}",
            f"balancer log, requests retried, failed or 5xx: {len(self.details['balancer_log'])}",
            *(f"  {line[:300]}" for line in self.details["balancer_log"][:8]),
            f"OP errors logged: {len(self.details['op_errors'])}",
            *(f"  {line[:300]}" for line in self.details["op_errors"][:5]),
            "balancer: "
            + "; ".join(
                f"{name} {row['status']} {row['stot']} requests, {row['wretr']} retried, "
                f"{row['wredis']} redispatched, {row['hrsp_5xx']} 5xx, {row['chkdown']} downs"
                for name, row in sorted(self.details["balancer"].items())
            ),
            "RSS per node, MiB, a sample a minute: "
            + "; ".join(
                f"{name} " + " ".join(f"{s.kib / 1024:.0f}" for s in samples[:: self._per_minute])
                for name, samples in sorted(observed.samples.items())
            ),
            "RSS per node over its last run after warm-up: "
            + "; ".join(
                f"{name} {m[1] / 1024:.1f} -> {m[2] / 1024:.1f} MiB (trend {m[0]:+.0f} KiB)"
                if m
                else f"{name} -"
                for name, m in sorted(self.memory().items())
            ),
            "requests per second, GET session: "
            + "; ".join(
                f"{strategy}: fleet {self.rates[f'{strategy} fleet']:.0f}, one node "
                f"{self.rates[f'{strategy} one node']:.0f} "
                f"(x{self.rates[f'{strategy} fleet'] / self.rates[f'{strategy} one node']:.2f})"
                for strategy in ("database", "jwt")
            ),
        ]
        failures = self.failures()
        lines.append("FAILED: " + "; ".join(failures) if failures else "passed")
        return "\n".join(lines)


def _at(event: Any) -> float:
    return float(event.at)


def _merged(counters: Any) -> dict[str, int]:
    total: Counter[str] = Counter()
    for counter in counters:
        total.update(counter)
    return dict(total)
