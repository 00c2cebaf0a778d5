"""``python -m bench [--seconds S] [--rounds N] [--quick] [--json PATH]``: run every
benchmark once, print the tables, write every figure to a JSON file."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import cryptography

from . import authjs
from .accounts import hashing_figures, totp_figures
from .app import DEFAULT_UPDATE_AGE
from .crypto_floor import decrypt_encrypt_per_second
from .database import (
    database_checks_per_second,
    postgres,
    postgres_adapters,
    sqlalchemy_figures,
    sqlalchemy_goal,
    sqlite_adapters,
)
from .database_http import database_http_figures, postgres_goal
from .django_orm import django_figures
from .frameworks import framework_figures
from .goals import goals_table
from .inprocess import session_checks_per_second
from .load import generator
from .oauth_round_trip import oauth_rows
from .peer_apps import missing_peers
from .plan import Plan
from .python_peers import peer_figures
from .report import Figure, machine, table, write_json
from .revocation import revocation_rows
from .side_by_side import http_figures, route_goals
from .workers import worker_figures

if TYPE_CHECKING:
    from db_servers import PostgresServer

IN_PROCESS = "In process, no HTTP (× = ÷ the crypto floor)"
OAUTH = "OAuth sign-in round trip (no ratio)"
TARGETS = "only the sections whose figures the targets are taken from"
QUICK = "check that it all runs: 0.2 s in process, one 1 s round over HTTP, no warm-up"
RESULTS = Path("bench/results.json")


def _plan(argv: list[str] | None) -> tuple[Plan, float, Path]:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=10, help="alternating rounds over HTTP")
    parser.add_argument("--quick", action="store_true", help=QUICK)
    parser.add_argument("--json", type=Path, default=RESULTS, help=f"default: {RESULTS}")
    parser.add_argument("--targets", action="store_true", help=TARGETS)
    args = parser.parse_args(argv)
    if args.quick:
        return Plan(seconds=1, rounds=1, warm_up=False, targets_only=args.targets), 0.2, args.json
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be positive and --rounds at least 1")
    over_http = max(1, round(args.seconds))  # wrk takes whole seconds
    plan = Plan(
        seconds=over_http, rounds=args.rounds, warm_up=True, targets_only=args.targets, copies=3
    )
    return plan, args.seconds, args.json


def _in_process(seconds: float, postgres_server: PostgresServer) -> list[Figure]:
    floor = decrypt_encrypt_per_second(seconds)
    rows = [
        ("crypto floor: AES-256-CBC+HMAC-SHA-512 decrypt+encrypt", floor),
        ("session check, update_age default (no re-issue)",
         session_checks_per_second(DEFAULT_UPDATE_AGE, seconds)),
        ("session check, update_age=0 (re-encrypt, as Auth.js)",
         session_checks_per_second(0, seconds)),
    ]  # fmt: skip
    rows += revocation_rows(seconds)
    databases = (
        ("SQLite file", sqlite_adapters()),
        ("PostgreSQL", postgres_adapters(postgres_server)),
    )
    for database, adapters in databases:
        with adapters as make_adapter:
            rows += [
                (f"database session check, {database}, update_age default",
                 database_checks_per_second(make_adapter, DEFAULT_UPDATE_AGE, seconds)),
                (f"database session check, {database}, update_age=0 (write each)",
                 database_checks_per_second(make_adapter, 0, seconds)),
            ]  # fmt: skip
    figures = [Figure(IN_PROCESS, name, "per second", rate, floor) for name, rate in rows]
    return figures + sqlalchemy_figures(postgres_server, seconds, rounds=5)


def main(argv: list[str] | None = None) -> None:
    """Measure; print one table per section with the ratios; write the JSON file."""
    plan, in_process_seconds, json_path = _plan(argv)
    taken, host = datetime.now(UTC).isoformat(timespec="seconds"), machine()
    node = authjs.node_version() if authjs.node_missing() is None else None
    about = {
        "taken": taken,
        "command": "python -m bench " + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": host,
        "cryptography": cryptography.__version__,
        "node": node,
        "load_generator": generator(),
    }
    print(f"sansio-auth bench, {taken}: {host['cpu']} ({host['cores']} cores), "
          f"Python {host['python']}, node {node or '(none: no Auth.js figures)'}, "
          f"load by {generator()}", flush=True)  # fmt: skip
    with postgres() as postgres_server:
        figures = _in_process(in_process_seconds, postgres_server)
        figures += http_figures(plan)
        goals = route_goals(figures)
        database = database_http_figures(plan, postgres_server)
        figures += database
        if not plan.targets_only:
            figures += django_figures(plan, postgres_server)
    if (missing := missing_peers()) is None:
        peers, peer_goals = peer_figures(plan)
        frameworks, framework_goals = framework_figures(in_process_seconds * 5)
        figures += peers + frameworks
        goals += [*peer_goals, *framework_goals]
    else:
        print(f"\nno Python peers, no aiohttp and Django figures: {missing}", flush=True)
    if not plan.targets_only:
        figures += worker_figures(plan)
        figures += hashing_figures(plan)
        figures += totp_figures(in_process_seconds)
        figures += [Figure(OAUTH, name, "per second", rate) for name, rate in oauth_rows()]
    goals += [postgres_goal(database), sqlalchemy_goal(figures)]
    print(table(figures), flush=True)
    print(goals_table(goals), flush=True)
    write_json(json_path, figures, {**about, "targets": [goal.as_json() for goal in goals]})
    print(f"\nfigures written to {json_path}")


if __name__ == "__main__":
    main()
