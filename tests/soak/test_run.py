"""When the soak fails, and its command line."""

from __future__ import annotations

import pytest

from soak.__main__ import options
from soak.memory import Sample
from soak.run import Options, Report
from soak.workload import Tally

FLAT = [Sample(t, 50_000) for t in (0.0, 60.0, 120.0)]


def report(
    tally: Tally | None = None, samples: list[Sample] = FLAT, log: list[str] | None = None
) -> Report:
    return Report(
        Options(120, warm_up=0, sample_every=60), tally or Tally(), samples, {}, log or []
    )


def test_a_clean_run_passes() -> None:
    clean = report()
    assert clean.failures() == []
    assert clean.slope == 0
    assert clean.text().endswith("passed")


def test_a_5xx_an_unexpected_log_entry_or_a_wrong_answer_fails_it() -> None:
    tally = Tally()
    tally.server_errors["session 500"] += 1
    assert report(tally).failures() == ["1 responses were 5xx"]
    assert report(log=["Task exception was never retrieved"]).failures() == [
        "1 unexpected log entries"
    ]
    wrong = Tally()
    wrong.mismatches["sign-out"] += 1
    assert report(wrong).failures() == ["some answers were wrong or did not come"]
    assert "FAILED" in report(wrong).text()


def test_growing_memory_fails_it() -> None:
    growing = [Sample(t, 50_000 + int(t) * 100) for t in (0.0, 60.0, 120.0)]  # 6 MiB/min
    [failure] = report(samples=growing).failures()
    assert failure.startswith("RSS grows: 12000 KiB over the window")
    slight = [Sample(t, 50_000 + int(t) * 10) for t in (0.0, 60.0, 120.0)]
    assert report(samples=slight).failures() == []


def test_the_command_line() -> None:
    ten = options([])
    assert (ten.seconds, ten.connections, ten.warm_up, ten.sample_every) == (600, 64, 30, 5)
    short = options(["--seconds", "20", "--connections", "16"])
    assert (short.seconds, short.connections, short.warm_up, short.sample_every) == (20, 16, 5, 2)
    assert options(["--minutes", "1", "--max-growth-mib", "2"]).max_growth_kib == 2048
    with pytest.raises(SystemExit):
        options(["--seconds", "0"])
    with pytest.raises(SystemExit):
        options(["--seconds", "10", "--minutes", "1"])
