"""``python -m soak.cluster`` (about eight minutes) or ``--quick`` (about three): the cluster
soak; exits 1 when it fails."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from .fleet import FleetOptions
from .run import Options, soak

QUICK = Options(
    seconds=90,
    users=5,
    first_fault=5,
    gap=2,
    tail=15,
    warm_up=8,
    sample_every=1,
    throughput_seconds=2,
    throughput_rounds=1,
    fleet=FleetOptions(update_age=5),
)
"""About three minutes in all, the same faults and checks (``make soak-cluster-quick``)."""
FULL = Options(seconds=7 * 60, tail=60, warm_up=150, sample_every=5, throughput_seconds=4)
"""About nine minutes in all (``make soak-cluster``)."""


def options(argv: list[str] | None = None) -> Options:
    """The command line as :class:`Options`."""
    parser = argparse.ArgumentParser(prog="python -m soak.cluster", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the short run, same checks")
    parser.add_argument("--seconds", type=float, help="the workload's length, at least")
    parser.add_argument("--nodes", type=int, help="nodes behind the balancer (3)")
    parser.add_argument("--workers", type=int, help="uvicorn workers per node (2)")
    parser.add_argument("--users", type=int, help="users per site, two browsers each")
    parser.add_argument(
        "--keep-logs", type=Path, metavar="DIR", help="copy the fleet's logs to DIR if it fails"
    )
    args = parser.parse_args(argv)
    chosen = QUICK if args.quick else FULL
    fleet = chosen.fleet
    if args.nodes is not None:
        fleet = replace(fleet, nodes=args.nodes)
    if args.workers is not None:
        fleet = replace(fleet, workers=args.workers)
    changes: dict[str, Any] = {"fleet": fleet, "keep_logs": args.keep_logs}
    if args.seconds is not None:
        changes["seconds"] = args.seconds
    if args.users is not None:
        changes["users"] = args.users
    if min(fleet.nodes, fleet.workers, changes.get("users", 1)) < 1:
        parser.error("nodes, workers and users must be at least 1")
    return replace(chosen, **changes)


def main() -> int:
    report = soak(options())
    print(report.text(), flush=True)
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
