"""``python -m bench --quick`` runs end to end (this checks it works, not its figures): every
section printed, every figure in the JSON file, Auth.js side by side when node is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.database_http import BEHIND_PGBOUNCER, READ_ALONE
from bench.django_orm import BARE as BARE_VIEW
from bench.django_orm import OURS as DJANGO_STORE
from bench.peer_apps import missing_peers

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
OURS = ("ours, uvicorn h11 + asyncio", "ours, uvicorn httptools + uvloop")


def test_bench_prints_and_writes_every_figure_with_its_ratio(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--json", str(results)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    document = json.loads(results.read_text())
    assert document["command"] == f"python -m bench --quick --json {results}"
    assert document["machine"]["cores"] >= 1
    figures: dict[tuple[str, str], dict[str, Any]] = {}  # a row's first figure: against its peer
    for figure in document["figures"]:
        assert figure["per_second"] > 0, figure
        assert figure["section"] in done.stdout
        figures.setdefault((figure["row"], figure["column"]), figure)
    in_process = [f for f in document["figures"] if f["section"].startswith("In process")]
    assert in_process[0]["row"].startswith("crypto floor")
    assert in_process[0]["ratio"] == 1
    assert len(in_process) == 8
    assert all(f["ratio"] > 0 for f in in_process)

    routes = ("GET /auth/session, valid cookie", "GET /auth/session, update_age=0",
              "GET /auth/csrf", "session read in straight-line code",
              "session re-issue in straight-line code", "CSRF token + cookie in straight-line code",
              "the straight-line read through", "the straight-line re-issue through",
              "the straight-line CSRF token through", "session token decrypted on every request",
              "bare handler")  # fmt: skip
    http = {
        (route, column): f
        for (row, column), f in figures.items()
        for route in routes
        if row.startswith(route) and f["section"].startswith("HTTP GET")
    }
    for route in routes:
        for column in OURS:
            assert (route, column) in http, (route, column)
            assert len(http[route, column]["rounds"]) == 1  # --quick: one round
    assert ("PostgreSQL", "ours, uvicorn httptools + uvloop") in figures
    assert ("SQLite file", "ours, uvicorn httptools + uvloop") in figures
    for row in (READ_ALONE, BEHIND_PGBOUNCER):  # the ceiling; PgBouncer is a system package
        assert (row, "ours, uvicorn httptools + uvloop") in figures
    django = {(f["row"], f["column"]): f for f in document["figures"]
              if f["section"].startswith("Django ORM store")}  # fmt: skip
    for database in ("SQLite file", "PostgreSQL"):
        bare, ours = django[database, BARE_VIEW], django[database, DJANGO_STORE]
        assert ours["ratio"] == pytest.approx(ours["per_second"] / bare["per_second"], rel=1e-2)
    assert len(django) == 4
    workers = [f for f in document["figures"] if f["section"].startswith("Workers")]
    assert [f["column"] for f in workers] == ["1 worker", "2 workers"]
    assert workers[1]["ratio"] == pytest.approx(
        workers[1]["per_second"] / workers[0]["per_second"], rel=1e-2
    )
    assert document["load_generator"] == ("wrk" if shutil.which("wrk") else "asyncio client")
    hashing = [f for f in document["figures"] if f["section"].startswith("Session reads while")]
    assert [f["row"].split(" while")[0] for f in hashing] == ["GET /auth/session alone",
                                                              "GET /auth/session"]  # fmt: skip
    assert hashing[1]["ratio"] > 0
    [totp] = [f for f in document["figures"] if f["section"] == "Second factor, in process"]
    assert totp["row"].startswith("TOTP code check")
    targets = {target["name"]: target for target in document["targets"]}
    for name, target in targets.items():  # each printed with its measured value and verdict
        assert name in done.stdout
        assert target["met"] in (True, False, None)
        assert (target["met"] is None) == (target["measured"] is None)
    assert sum(name.startswith("/auth/") for name in targets) == 3
    if missing_peers() is None:
        peers = [f for f in document["figures"] if f["section"].startswith("Python peers")]
        assert len(peers) == 9
        assert peers[0]["ratio"] == 1  # ours (JWT): every peer is divided by it
        assert len(targets) == 11
    else:
        assert missing_peers() in done.stdout

    if shutil.which("node") is None:
        pytest.skip("node not installed: no Auth.js figures to check")
    assert document["node"].startswith("v")
    for route in ("GET /auth/session, valid cookie", "GET /auth/csrf", "bare handler"):
        authjs = http[route, "Auth.js (node)"]
        assert authjs["ratio"] is None
        for column in OURS:
            ours = http[route, column]
            assert ours["ratio"] == pytest.approx(
                ours["per_second"] / authjs["per_second"], rel=1e-2
            )
    session = http["GET /auth/session, valid cookie", "Auth.js (node)"]["per_second"]
    for column in OURS:  # both references are compared with Auth.js's session read
        for row in ("session read in straight-line code", "session re-issue in straight-line code",
                    "session token decrypted on every request"):  # fmt: skip
            reference = http[row, column]
            assert reference["ratio"] == pytest.approx(reference["per_second"] / session, rel=1e-2)
    authjs_pg = figures["PostgreSQL", "Auth.js + @auth/pg-adapter (node)"]
    ours_pg = figures["PostgreSQL", "ours, uvicorn httptools + uvloop"]
    assert ours_pg["ratio"] == pytest.approx(
        ours_pg["per_second"] / authjs_pg["per_second"], rel=1e-2
    )
