"""``python -m soak.cluster --minutes 8`` (or ``--quick``): the cluster soak; exits 1 when it
fails."""

from __future__ import annotations

import argparse
import sys

from .fleet import FleetOptions
from .run import Options, soak

QUICK_SECONDS = 120.0


def options(argv: list[str] | None = None) -> Options:
    """The command line as :class:`Options`."""
    parser = argparse.ArgumentParser(prog="python -m soak.cluster", description=__doc__)
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--minutes", type=float, help="measured minutes")
    length.add_argument("--seconds", type=float, help="measured seconds")
    length.add_argument(
        "--quick", action="store_true", help=f"{QUICK_SECONDS:.0f} s, the same checks"
    )
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2, help="uvicorn workers per node")
    parser.add_argument("--users", type=int, default=6, help="users per site, two browsers each")
    args = parser.parse_args(argv)
    if args.seconds is not None:
        seconds = args.seconds
    elif args.minutes is not None:
        seconds = args.minutes * 60
    else:
        seconds = QUICK_SECONDS if args.quick else 8 * 60
    fleet = FleetOptions(nodes=args.nodes, workers=args.workers)
    return Options(seconds, users=args.users, fleet=fleet)


def main() -> int:
    report = soak(options())
    print(report.text(), flush=True)
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
