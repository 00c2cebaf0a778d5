"""``python -m soak.cluster --quick`` end to end (``make soak-cluster-quick``): HAProxy, three
nodes of two workers, PostgreSQL, Redis and the OP, every fault, every check; it passes and
its report carries every figure."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from soak.cluster.workload import SCENARIOS

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(900)
def test_the_quick_cluster_soak_passes_and_reports_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "soak.cluster", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=840,
    )
    report = done.stdout
    assert done.returncode == 0, report + done.stderr[-5000:]
    assert report.rstrip().endswith("passed"), report
    scenarios = report.split("scenarios: ")[1].splitlines()[0]
    for name in SCENARIOS:
        assert re.search(rf"{name} [1-9]", scenarios), name  # every scenario ran
    faults = report.split("faults: ")[1].splitlines()[0]
    for fault in ("new secret added", "old secret removed", "mid-refresh", "restart node-2",
                  "PostgreSQL restarted", "Redis stopped 10 s"):  # fmt: skip
        assert fault in faults, fault
    assert "5xx: 0" in report
    assert re.search(r"Redis stopped: \w+", report)  # the fail-closed answers are named
    assert re.search(r"sent more than once: 0; refused by the OP: 0", report)
    assert re.search(r"refresh-token rotations: [1-9]", report)
    for how in ("back-channel database", "back-channel jwt", "revoke database", "revoke jwt"):
        assert re.search(rf"{how}: n=[1-9]\d* median [\d.]+ max 0\.\d\d", report), how
    assert "'emails': [], 'accounts': []}, 'jwt': {'emails': [], 'accounts': []}" in report
    assert "sessions lost across faults: 0 []" in report
    assert re.search(r"requests per second, GET session: database: fleet \d+, one node \d+", report)
