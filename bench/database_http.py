"""Database-session checks over HTTP: ``GET /auth/session`` with a database session's cookie.

Ours: :func:`bench.app.create_database_app` under uvicorn (httptools + uvloop) on SQLite (a
file) and on PostgreSQL (through our psycopg adapter, and through the SQLAlchemy adapter
on the same rows: its default models are the same tables). Auth.js: ``@auth/core`` with
its official ``@auth/pg-adapter`` on the same PostgreSQL database: the same tables (ours are
Auth.js's), the same user and session rows (seeded once, by our adapter), the same default
``update_age`` (a read, no write). Both again behind PgBouncer in transaction mode (ours
with ``prepare=False``), when it is installed. The ceiling: the same uvicorn serving only
our adapter's session read (``bench.database_read:create_app``, the same pool), no
engine. The servers are pinned to core 0; PostgreSQL and PgBouncer are not pinned.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from io_bindings.db.postgres import PostgresAdapter
from io_bindings.db.sqlite import SQLiteAdapter

from . import authjs
from .app import USER
from .database import SESSION_COOKIE_HEADER, seed_once
from .goals import Goal
from .load import alternating, described, first_visit, pooled
from .plan import Plan
from .report import Figure, typical
from .servers import Server, authjs_peer, copies_of, running, uvicorn

if TYPE_CHECKING:
    from db_servers import PgBouncer, PostgresServer

AUTHJS = "Auth.js + @auth/pg-adapter (node)"
OURS = "ours, uvicorn httptools + uvloop"
VIA_SQLALCHEMY = "PostgreSQL via SQLAlchemy"
READ_ALONE = "ceiling: the adapter's session read alone, no engine (same uvicorn, same pool)"
BEHIND_PGBOUNCER = "PostgreSQL behind PgBouncer (transaction mode, pool of 10)"
SQLALCHEMY_HTTP = (
    "SQLAlchemy adapter against our psycopg adapter over HTTP: GET /auth/session per second, "
    "the same rows on the same PostgreSQL (× = ÷ psycopg; target ×0.67 or more)"
)


def _url(dsn: str) -> str:
    """The ``postgresql://`` URL (node's ``pg``) of a ``key=value`` libpq DSN."""
    fields = dict(part.split("=", 1) for part in dsn.split())
    return f"postgresql://{fields['user']}@{fields['host']}:{fields['port']}/{fields['dbname']}"


def _is_session(body: Any) -> bool:
    return isinstance(body, dict) and body.get("user", {}).get("name") == USER["name"]


def section(plan: Plan) -> str:
    """The title of these figures' table."""
    return (
        f"Database sessions over HTTP, GET /auth/session per second: server on core 0, "
        f"{described()} on core 1, {plan.describe(copied=True)} (× = ours ÷ Auth.js)"
    )


@contextmanager
def _pgbouncer(postgres: PostgresServer) -> Iterator[PgBouncer | None]:
    """PgBouncer in transaction mode in front of ``postgres`` (``None`` if not installed),
    as many server connections per database as the pools have."""
    from db_servers import pgbouncer

    if shutil.which("pgbouncer") is None and not Path("/usr/sbin/pgbouncer").exists():
        yield None
        return
    with pgbouncer(postgres, pool_size=10) as bouncer:
        yield bouncer


def database_http_figures(plan: Plan, postgres: PostgresServer) -> list[Figure]:
    """Ours on SQLite and PostgreSQL, Auth.js on the same PostgreSQL, both behind
    PgBouncer too, and the ceiling, alternating rounds."""
    from db_servers import sqlalchemy_url

    dsn = postgres.create_database()
    anyio.run(seed_once, PostgresAdapter(dsn))
    with contextlib.ExitStack() as stack:
        directory = stack.enter_context(tempfile.TemporaryDirectory(prefix="sansio-auth-bench-"))
        bouncer = stack.enter_context(_pgbouncer(postgres))
        sqlite = str(Path(directory) / "auth.db")
        anyio.run(seed_once, SQLiteAdapter(sqlite))
        app, stack_name = "bench.app:create_database_app", "httptools + uvloop"
        servers: dict[tuple[str, str], Server] = {
            ("SQLite file", OURS): uvicorn(app, stack_name, env={"BENCH_SQLITE": sqlite}),
            ("PostgreSQL", OURS): uvicorn(app, stack_name, env={"BENCH_POSTGRES": dsn}),
            (READ_ALONE, OURS): uvicorn(
                "bench.database_read:create_app", stack_name, env={"BENCH_POSTGRES": dsn}
            ),
            (VIA_SQLALCHEMY, OURS): uvicorn(
                app, stack_name, env={"BENCH_SQLALCHEMY": sqlalchemy_url(dsn)}
            ),
        }
        bounced = None if bouncer is None else bouncer.dsn(dsn.rpartition("dbname=")[2])
        if bounced is not None:
            servers[BEHIND_PGBOUNCER, OURS] = uvicorn(
                app, stack_name, env={"BENCH_POSTGRES": bounced, "BENCH_PREPARE": "0"}
            )
        if authjs.node_missing() is None:
            servers["PostgreSQL", AUTHJS] = authjs_peer(DATABASE_URL=_url(dsn))
            if bounced is not None:
                servers[BEHIND_PGBOUNCER, AUTHJS] = authjs_peer(DATABASE_URL=_url(bounced))
        with running(copies_of(servers, plan.copies)) as urls:
            cookie = SESSION_COOKIE_HEADER
            targets = {
                key: first_visit(url + "/auth/session", cookie, _is_session, keep=True)
                for key, url in urls.items()
            }
            rates = pooled(alternating(targets, plan.seconds, plan.rounds, warm_up=plan.warm_up))
    postgres.drop_database(dsn)
    title, figures = section(plan), []
    baselines = {row: typical(rates[row, AUTHJS]) for row, _ in rates if (row, AUTHJS) in rates}
    for row in ("PostgreSQL", READ_ALONE, BEHIND_PGBOUNCER, "SQLite file"):
        for column in (AUTHJS, OURS):
            if (row, column) in rates:
                baseline = None if column == AUTHJS else baselines.get(row)
                if row == READ_ALONE:
                    baseline = baselines.get("PostgreSQL")
                processes = rates[row, column]
                figures.append(Figure.of_processes(title, row, column, processes, baseline))
    psycopg = typical(rates["PostgreSQL", OURS])
    for row, column in (("PostgreSQL", OURS), (VIA_SQLALCHEMY, OURS)):
        processes = rates[row, column]
        figures.append(Figure.of_processes(SQLALCHEMY_HTTP, row, column, processes, psycopg))
    return figures


def postgres_goal(figures: list[Figure]) -> Goal:
    """PostgreSQL database sessions against Auth.js + ``@auth/pg-adapter``; the note gives
    the ceiling (our session read alone ÷ Auth.js) and the ratio behind PgBouncer."""
    ratios = {(f.section, f.row): f.ratio for f in figures if f.column == OURS and f.ratio}
    found = ratios.get((figures[0].section if figures else "", "PostgreSQL"))
    notes = [
        f"{label} ×{ratios[figures[0].section, row]:.2f}"
        for label, row in (
            ("ceiling (read alone)", READ_ALONE),
            ("behind PgBouncer", BEHIND_PGBOUNCER),
        )
        if figures and (figures[0].section, row) in ratios
    ]
    return Goal(
        "PostgreSQL sessions ÷ Auth.js + @auth/pg-adapter (same rows)",
        found,
        2,
        note="; ".join(notes) if found else "no node: no Auth.js peer",
    )
