"""The CI pass over the atheris targets: every seed is handled, then each target fuzzes
briefly under atheris (skipped where atheris is not installed)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from fuzz.run import main as run
from fuzz.targets import TARGETS
from sansio_auth import NotAnAuthRoute

CORPUS = Path(__file__).resolve().parent / "corpus"


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_seed_is_handled(name: str) -> None:
    seeds = sorted((CORPUS / name).iterdir())
    assert seeds, f"no seeds for {name}"
    for seed in seeds:
        TARGETS[name](seed.read_bytes())


def test_the_engine_target_sees_a_signed_in_session() -> None:
    """Half the inputs carry a valid session cookie: it must really be one."""
    from fuzz.targets import _engine, _perform, _session_cookie, parse_request

    request = parse_request(f"GET /auth/session\ncookie: {_session_cookie()}\n\n".encode())
    flow = _engine().handle(request)
    assert not isinstance(flow, NotAnAuthRoute)
    assert flow.run_sync(_perform).json()["user"]["email"] == "ann@example.com"


@pytest.mark.fuzz
@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed")
def test_short_atheris_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--seconds", "1", "--seed", "1"]) == 0
    table = capsys.readouterr().out.splitlines()[1:]
    assert len(table) == len(TARGETS)
    for line in table:
        _name, executed, _, result = line.split()
        assert result == "ok", line
        assert int(executed) > 0, line
