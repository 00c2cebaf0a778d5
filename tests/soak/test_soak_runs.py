"""``python -m soak`` end to end, briefly: the OP, the server, every scenario, the report."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from soak.workload import SCENARIOS

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_soak_passes_and_reports_everything() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "soak", "--seconds", "20", "--connections", "16"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    report = done.stdout
    assert done.returncode == 0, report + done.stderr
    assert report.rstrip().endswith("passed"), report
    scenarios = dict(
        re.findall(r"([a-z -]+?) (\d+)(?:, |$)", report.split("scenarios: ")[1].splitlines()[0])
    )
    for name in SCENARIOS:
        assert int(scenarios[name]) > 0, name  # every scenario ran
    assert "5xx: 0" in report
    for refusal in ("JWTSessionError", "CredentialsSignin", "MissingCSRF"):
        assert re.search(rf"'{refusal}': [1-9]", report), refusal  # the log was read
    assert re.search(r"RSS after warm-up \d+\.\d MiB, at the end \d+\.\d MiB, slope", report)
