"""``python -m soak --minutes 10 --connections 64``: the soak; exits 1 when it fails."""

from __future__ import annotations

import argparse
import sys

from .run import Options, soak


def options(argv: list[str] | None = None) -> Options:
    """The command line as :class:`Options`."""
    parser = argparse.ArgumentParser(prog="python -m soak", description=__doc__)
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--minutes", type=float, help="measured minutes (default 10)")
    length.add_argument("--seconds", type=float, help="measured seconds")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument(
        "--warm-up",
        type=float,
        help="seconds before RSS is measured (default: a quarter of the measured time, at most 30)",
    )
    parser.add_argument("--sample-every", type=float, help="seconds between RSS samples")
    parser.add_argument(
        "--max-growth-mib",
        type=float,
        default=8.0,
        help="the most the RSS trend may grow over the measured window",
    )
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (args.minutes or 10) * 60
    warm_up = args.warm_up if args.warm_up is not None else min(30.0, seconds / 4)
    sample_every = args.sample_every or min(5.0, seconds / 10)
    try:
        return Options(seconds, args.connections, warm_up, sample_every, args.max_growth_mib * 1024)
    except ValueError as err:
        parser.error(str(err))


def main() -> int:
    report = soak(options())
    print(report.text(), flush=True)
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
