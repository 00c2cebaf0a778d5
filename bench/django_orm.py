"""The Django ORM store's session read over HTTP, against a bare Django view reading one row.

One Django project (:mod:`bench.django_site`) under uvicorn (httptools + uvloop, pinned to
core 0) answers both: ``GET /auth/session`` with a database session's cookie (the auth
``handle``, the engine, :class:`~io_bindings.django.orm.DjangoAdapter` reading the session,
its user and profile in one query in a worker thread) and ``GET /row`` (an async view that
reads the same session row and its user with the async ORM and returns them as JSON). The
same rows, the same database settings (SQLite file; PostgreSQL through Django's pool),
alternating rounds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from live_server import ROOT

from .app import USER
from .database import SESSION_COOKIE_HEADER
from .load import alternating, described, first_visit
from .plan import Plan
from .report import Figure
from .servers import running, uvicorn

if TYPE_CHECKING:
    from db_servers import PostgresServer

BARE = "bare Django view, one row (async ORM)"
OURS = "GET /auth/session, Django ORM store"
APP = "bench.django_site:create_app"


def section(plan: Plan) -> str:
    """The title of these figures' table."""
    return (
        f"Django ORM store against a bare Django view over HTTP, per second: uvicorn httptools "
        f"+ uvloop on core 0, {described()} on core 1, {plan.describe()} (× = ours ÷ the bare "
        f"view on the same database; target ×0.67 or more, i.e. within 1.5×)"
    )


def _seed(env: dict[str, str]) -> None:
    """Migrate the database of ``env`` and store the bench user and session."""
    command = [sys.executable, "-m", "bench.django_site"]
    path = os.pathsep.join([str(ROOT), str(ROOT / "tests" / "support")])
    full = {**os.environ, **env, "PYTHONPATH": path}
    subprocess.run(command, env=full, cwd=ROOT, check=True, capture_output=True)


def _is_session(body: Any) -> bool:
    return isinstance(body, dict) and body.get("user", {}).get("email") == USER["email"]


def django_figures(plan: Plan, postgres: PostgresServer) -> list[Figure]:
    """Ours and the bare view on a SQLite file and on PostgreSQL, alternating rounds."""
    dsn = postgres.create_database()
    with tempfile.TemporaryDirectory(prefix="sansio-auth-bench-") as directory:
        databases = {
            "SQLite file": {"BENCH_DJANGO_SQLITE": str(Path(directory) / "django.sqlite3")},
            "PostgreSQL": {"BENCH_DJANGO_POSTGRES": dsn},
        }
        for env in databases.values():
            _seed(env)
        stack = "httptools + uvloop"
        servers = {name: uvicorn(APP, stack, env=env) for name, env in databases.items()}
        with running(servers) as urls:
            targets = {
                (name, column): first_visit(
                    urls[name] + path, SESSION_COOKIE_HEADER, _is_session, keep=True
                )
                for name in databases
                for column, path in ((BARE, "/row"), (OURS, "/auth/session"))
            }
            rates = alternating(targets, plan.seconds, plan.rounds, warm_up=plan.warm_up)
    postgres.drop_database(dsn)
    title, figures = section(plan), []
    for name in databases:
        bare = Figure.best(title, name, BARE, rates[name, BARE])
        figures += [bare, Figure.best(title, name, OURS, rates[name, OURS], bare.per_second)]
    return figures
