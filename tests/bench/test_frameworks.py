"""The in-process framework figures (``bench.frameworks``) run end to end in a process of
their own (Django's settings are global): every row, the decrypt-only ceilings among them,
checked to answer the e-mail signed in and 401 signed out and tampered before it is timed,
and each µs target noted with its ceiling. Figures are not asserted."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        importlib.util.find_spec("allauth") is None, reason="django-allauth (the bench extra)"
    ),
]

ROOT = Path(__file__).resolve().parents[2]
RUN = """
import json
from bench.frameworks import framework_figures
figures, goals = framework_figures(0.2)
print(json.dumps({"rows": [f.row for f in figures], "goals": [g.as_json() for g in goals]}))
"""


def test_every_row_and_its_ceiling_is_measured() -> None:
    done = subprocess.run([sys.executable, "-c", RUN], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=True)  # fmt: skip
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["rows"] == [
        "Django bare", "Django decrypt on every request", "Django request.auth()",
        "Django django-allauth", "aiohttp bare", "aiohttp decrypt on every request",
        "aiohttp get_session",
    ]  # fmt: skip
    for goal in result["goals"]:
        assert goal["unit"] == "µs"
        assert goal["measured"] > 0
        assert "decrypting the cookie alone costs" in goal["note"]
        assert "jwt.decode outside any request" in goal["note"]
