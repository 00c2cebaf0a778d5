"""The conformance suite on the Django ORM store with a custom user model: the users example's
``members.User`` (e-mail as username, unique and nullable; a ``name`` field). Django's user
model is fixed once per process, so the suite runs again in a pytest process of its own with
``DJANGO_SETTINGS_MODULE`` set to the example's settings (this process has Django's own
``auth.User``: ``tests/io_bindings/db/test_conformance.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from live_server import ROOT

EXAMPLE = ROOT / "examples" / "django_users"


@pytest.mark.parametrize("database", ["sqlite", pytest.param("postgres", marks=pytest.mark.e2e)])
def test_the_suite_passes_with_the_examples_custom_user_model(
    database: str, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "usersite.settings",
        "EXAMPLE_SQLITE": str(tmp_path / "unused-default.sqlite3"),
        "PYTHONPATH": os.pathsep.join([str(EXAMPLE), os.environ.get("PYTHONPATH", "")]),
    }
    command = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
        "tests/io_bindings/db/test_conformance.py", "-k", f"django-{database}",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in summary
    assert "failed" not in summary
    assert "error" not in summary
