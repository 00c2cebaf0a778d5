"""Start-up checks and lazy configuration of the example project, in real processes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from live_server import ROOT, SUPPORT, LiveServer, free_port

from tests.io_bindings.django.conftest import PROJECT, serve_example
from tests.io_bindings.django.forms import sign_in_with_password

pytestmark = pytest.mark.e2e


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``manage.py`` of the example with ``env`` (repository code first on the path)."""
    full_env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT}:{SUPPORT}", **env}
    return subprocess.run(
        [sys.executable, str(PROJECT / "manage.py"), *args],
        capture_output=True, text=True, env=full_env, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("secret", ["too-short", "x" * 31])
def test_a_short_secret_stops_start_up(secret: str) -> None:
    done = manage("check", AUTH_SECRET=secret)
    assert done.returncode != 0
    assert "django.core.exceptions.ImproperlyConfigured: sansio-auth: AUTH_SECRET" in done.stderr
    assert "at least 32 characters" in done.stderr
    assert secret not in done.stderr  # the secret itself is never printed


def test_a_long_enough_secret_starts() -> None:
    done = manage("check", AUTH_SECRET="x" * 32)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module", params=["asgi", "wsgi"])
def lazy_site(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    port = free_port()
    with serve_example(request.param, port, {"EXAMPLE_LAZY_CONFIG": "1"}) as live:
        yield live


def test_lazy_config_is_chosen_per_request(lazy_site: LiveServer) -> None:
    with httpx.Client(base_url=lazy_site.url, timeout=15) as http:
        assert "staging" not in http.get("/auth/providers").json()
        staging = {"x-example-staging": "1"}
        assert "staging" in http.get("/auth/providers", headers=staging).json()
        assert sign_in_with_password(http).status_code == 303
        assert http.get("/awhoami").json()["session"]["user"]["name"] == "Demo User"
        assert http.get("/whoami").json()["session"]["user"]["name"] == "Demo User"
