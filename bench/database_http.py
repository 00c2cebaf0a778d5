"""Database-session checks over HTTP: ``GET /auth/session`` with a database session's cookie.

Ours: :func:`bench.app.create_database_app` under uvicorn (httptools + uvloop) on SQLite (a
file) and on PostgreSQL (through our psycopg adapter, and through the SQLAlchemy adapter
on the same rows: its default models are the same tables). Auth.js: ``@auth/core`` with
its official ``@auth/pg-adapter`` on the same PostgreSQL database: the same tables (ours are
Auth.js's), the same user and session rows (seeded once, by our adapter), the same default
``update_age`` (a read, no write). The servers are pinned to core 0; PostgreSQL is not pinned.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from io_bindings.db.postgres import PostgresAdapter
from io_bindings.db.sqlite import SQLiteAdapter

from . import authjs
from .app import USER
from .database import SESSION_COOKIE_HEADER, seed_once
from .goals import Goal
from .load import alternating, described, first_visit
from .plan import Plan
from .report import Figure
from .servers import Server, authjs_peer, running, uvicorn

if TYPE_CHECKING:
    from db_servers import PostgresServer

AUTHJS = "Auth.js + @auth/pg-adapter (node)"
OURS = "ours, uvicorn httptools + uvloop"
VIA_SQLALCHEMY = "PostgreSQL via SQLAlchemy"
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
        f"{described()} on core 1, {plan.describe()} (× = ours ÷ Auth.js)"
    )


def database_http_figures(plan: Plan, postgres: PostgresServer) -> list[Figure]:
    """Ours on SQLite and PostgreSQL, Auth.js on the same PostgreSQL, alternating rounds."""
    from db_servers import sqlalchemy_url

    dsn = postgres.create_database()
    anyio.run(seed_once, PostgresAdapter(dsn))
    with tempfile.TemporaryDirectory(prefix="sansio-auth-bench-") as directory:
        sqlite = str(Path(directory) / "auth.db")
        anyio.run(seed_once, SQLiteAdapter(sqlite))
        app, stack = "bench.app:create_database_app", "httptools + uvloop"
        servers: dict[tuple[str, str], Server] = {
            ("SQLite file", OURS): uvicorn(app, stack, env={"BENCH_SQLITE": sqlite}),
            ("PostgreSQL", OURS): uvicorn(app, stack, env={"BENCH_POSTGRES": dsn}),
            (VIA_SQLALCHEMY, OURS): uvicorn(
                app, stack, env={"BENCH_SQLALCHEMY": sqlalchemy_url(dsn)}
            ),
        }
        if authjs.node_missing() is None:
            servers["PostgreSQL", AUTHJS] = authjs_peer(DATABASE_URL=_url(dsn))
        named = {f"{row}, {column}": server for (row, column), server in servers.items()}
        with running(named) as urls:
            targets = {
                key: first_visit(
                    urls[f"{key[0]}, {key[1]}"] + "/auth/session",
                    SESSION_COOKIE_HEADER, _is_session, keep=True,
                )
                for key in servers
            }  # fmt: skip
            rates = alternating(targets, plan.seconds, plan.rounds, warm_up=plan.warm_up)
    postgres.drop_database(dsn)
    title, figures, baseline = section(plan), [], None
    if ("PostgreSQL", AUTHJS) in rates:
        figures.append(Figure.best(title, "PostgreSQL", AUTHJS, rates["PostgreSQL", AUTHJS]))
        baseline = figures[0].per_second
    figures.append(Figure.best(title, "PostgreSQL", OURS, rates["PostgreSQL", OURS], baseline))
    figures.append(Figure.best(title, "SQLite file", OURS, rates["SQLite file", OURS]))
    psycopg = max(rates["PostgreSQL", OURS])
    for row, column in (("PostgreSQL", OURS), (VIA_SQLALCHEMY, OURS)):
        figures.append(Figure.best(SQLALCHEMY_HTTP, row, column, rates[row, column], psycopg))
    return figures


def postgres_goal(figures: list[Figure]) -> Goal:
    """PostgreSQL database sessions against Auth.js + ``@auth/pg-adapter``."""
    found = [f.ratio for f in figures if (f.row, f.column) == ("PostgreSQL", OURS) and f.ratio]
    return Goal(
        "PostgreSQL sessions ÷ Auth.js + @auth/pg-adapter (same rows)",
        found[0] if found else None,
        2,
        note="" if found else "no node: no Auth.js peer",
    )
