"""``python -m bench`` runs end to end (tiny durations: this checks it works, not its figures)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def test_bench_prints_every_figure_with_its_ratio() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--seconds", "0.2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    rows = [line for line in done.stdout.splitlines() if re.search(r"\d\.\d{3}$", line)]
    assert [row.split(",")[0].split(" ")[0] for row in rows] == [
        "crypto", "in-process", "in-process", "HTTP", "HTTP", "in-process",
        "database", "database", "database", "database",
        "OAuth", "OAuth",
    ]  # fmt: skip
    assert rows[0].endswith(" 1.000")
    for row in rows:
        rate = float(row.split()[-3].replace(",", ""))
        assert rate > 0, row
