"""``python -m bench.profile_hot`` runs (tiny durations: this checks it works, not its figures)."""

from __future__ import annotations

import re

import pytest

from bench import profile_hot


def test_measure_prints_every_case_with_its_ratio_to_the_floor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    profile_hot.main(["measure", "--seconds", "0.02", "--runs", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("crypto floor")
    assert [line.split()[0] for line in lines[1:]] == list(profile_hot.cases())
    assert all(re.search(r"µs +\d+\.\d\d x floor$", line) for line in lines[1:])


def test_breakdown_times_each_step(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(profile_hot, "BREAKDOWN_LOOP", 3)
    profile_hot.main(["breakdown", "--runs", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(profile_hot.parts())
    assert all(line.endswith(" µs") for line in lines)


def test_profile_prints_the_profile_of_a_case(capsys: pytest.CaptureFixture[str]) -> None:
    profile_hot.main(["profile", "asgi-csrf", "--calls", "5", "--top", "100"])
    out = capsys.readouterr().out
    assert "function calls" in out
    assert "translate.py" in out
    assert "engine.py" in out
