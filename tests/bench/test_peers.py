"""The Python peers of ``make bench`` answer as the figures assume: each signed in for real
(the Authlib recipe through the local OpenID Provider) answers the user's e-mail, and 401
signed out and with its session cookie tampered (``bench.python_peers`` checks it before
it times anything; this runs those checks without the load)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from bench.peer_apps import missing_peers

pytestmark = pytest.mark.e2e
needs_peers = pytest.mark.skipif(missing_peers() is not None, reason=str(missing_peers()))


@needs_peers
def test_every_peer_signs_in_and_refuses_signed_out_and_tampered_cookies() -> None:
    from bench.python_peers import OURS, RECIPE, signed_in_targets

    with signed_in_targets() as targets:
        assert len(targets) == 9
        for name, target in targets.items():  # checked once more, from here
            answer = httpx.get(target.url, headers={"cookie": target.cookie})
            assert answer.status_code == 200, name
            assert "@example.com" in answer.json()["email"], name
        assert "authjs.session-token=" in targets[OURS].cookie
        assert "session=" in targets[RECIPE].cookie


def test_the_section_runs_alone_with_the_rows_named() -> None:
    """``python -m bench.python_peers --rows ...``: only those rows (and ours, whose cookie
    the references read), each round's figures, ours with the middleware against the
    recipe's target left out when the recipe is not measured."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.python_peers", "--rows", "ours-middleware", "decrypt",
         "--rounds", "1"],
        cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=300,
        check=True,
    )  # fmt: skip
    rows = [line for line in done.stdout.splitlines() if "per second" not in line]
    assert any(line.startswith("ours: FastAPI + HostAuth, middleware") for line in rows)
    assert any(
        line.startswith("a dependency that decrypts our cookie on every request") for line in rows
    )
    assert not any(line.startswith("Starlette SessionMiddleware") for line in rows)
