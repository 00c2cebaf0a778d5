"""The optional pytest plugin, used as a user would: opted in from a ``conftest.py``."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).parents[3]

CONFTEST = """
import pytest
from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials
from sansio_auth.testing import ANN, SECRET, authorize_from

pytest_plugins = ["sansio_auth.testing.pytest_plugin"]

@pytest.fixture
def auth_config(memory_op):
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        providers=[Credentials(authorize=authorize_from([ANN])), memory_op.provider()],
    )
"""

TESTS = """
def test_both_providers(auth_browser, memory_op):
    auth_browser.sign_in("op")
    assert auth_browser.session()["user"]["name"] == "Alice Liddell"
    assert memory_op.count("token") == 1
    auth_browser.sign_out()
    auth_browser.sign_in("credentials", username="ann", password="pw")
    assert auth_browser.session()["user"]["name"] == "Ann"

def test_a_fresh_op_per_test(memory_op):
    assert memory_op.requests == []
"""


def run_pytest(directory: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(directory)],
        capture_output=True,
        text=True,
        cwd=directory,
        env=env,
        check=False,
    )


def test_the_fixtures_work_from_a_users_conftest(tmp_path):
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST))
    (tmp_path / "test_app.py").write_text(textwrap.dedent(TESTS))
    result = run_pytest(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout


def test_without_an_auth_config_the_error_says_what_to_define(tmp_path):
    conftest = 'pytest_plugins = ["sansio_auth.testing.pytest_plugin"]\n'
    (tmp_path / "conftest.py").write_text(conftest)
    (tmp_path / "test_app.py").write_text("def test_x(auth_browser):\n    pass\n")
    result = run_pytest(tmp_path)
    assert result.returncode != 0
    assert "define an `auth_config` fixture" in result.stdout + result.stderr
