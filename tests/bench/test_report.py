"""The bench's tables: one column with µs and ratio; several as a matrix with "—" for gaps."""

from __future__ import annotations

import json
from pathlib import Path

from bench.report import Figure, table, write_json


def test_a_one_column_section_shows_micros_and_the_ratio() -> None:
    printed = table(
        [Figure("In process", "floor", "per second", 50_000, 50_000),
         Figure("In process", "check", "per second", 25_000, 50_000)]
    )  # fmt: skip
    lines = printed.strip().splitlines()
    assert lines[0] == "In process"
    assert lines[2].split() == ["floor", "50,000", "20.0", "×1.000"]
    assert lines[3].split() == ["check", "25,000", "40.0", "×0.500"]


def test_a_matrix_section_shows_ratios_and_gaps() -> None:
    figures = [
        Figure("HTTP", "session", "Auth.js", 1_000),
        Figure("HTTP", "session", "ours", 7_300, 1_000),
        Figure("HTTP", "update_age=0", "ours", 5_000, 1_000),
    ]
    lines = table(figures).strip().splitlines()
    assert lines[1].split() == ["Auth.js", "ours"]
    assert lines[2].split() == ["session", "1,000", "7,300", "(×7.3)"]
    assert lines[3].split() == ["update_age=0", "—", "5,000", "(×5.0)"]
    # the columns line up: every row as long as the header
    assert len({len(line) for line in lines[1:]}) == 1


def test_the_json_file_has_every_figure_and_what_it_was_taken_on(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_json(path, [Figure("S", "r", "c", 4_000, 2_000)], {"taken": "now"})
    assert json.loads(path.read_text()) == {
        "taken": "now",
        "figures": [{"section": "S", "row": "r", "column": "c", "per_second": 4000.0,
                     "us_each": 250.0, "ratio": 2.0, "rounds": [], "process_bests": []}],
    }  # fmt: skip


def test_a_figure_of_several_rounds_is_the_best_and_keeps_them() -> None:
    figure = Figure.best("S", "r", "c", [1_000, 5_000, 3_000], baseline=2_500)
    assert figure.per_second == 5_000
    assert figure.rounds == (1_000, 5_000, 3_000)
    assert figure.ratio == 2


def test_a_server_in_several_processes_is_its_typical_process() -> None:
    """The median of the processes' best rounds: one lucky process does not make the row."""
    processes = [[1_000, 1_200], [1_500, 1_100], [1_300, 1_250]]
    figure = Figure.of_processes("S", "r", "c", processes, baseline=650)
    assert figure.per_second == 1_300
    assert figure.process_bests == (1_200, 1_500, 1_300)
    assert figure.rounds == (1_000, 1_200, 1_500, 1_100, 1_300, 1_250)
    assert figure.ratio == 2
    assert Figure.of_processes("S", "r", "c", [[3.0, 5.0]]).per_second == 5  # one: its best


def test_the_csrf_target_notes_the_straight_line_row() -> None:
    from bench.report import Figure
    from bench.side_by_side import BARE, CSRF, STRAIGHT_CSRF, _column, route_goals

    fast = _column("httptools + uvloop")
    figures = [
        Figure("s", row, fast, rate)
        for row, rate in ((CSRF, 50.0), (STRAIGHT_CSRF, 80.0), (BARE, 100.0))
    ]
    goal = next(g for g in route_goals(figures) if "csrf" in g.name)
    assert (goal.measured, goal.unit, goal.met) == (0.5, "×", False)
    assert goal.note == "made in straight-line code: ×0.80"


def test_the_route_targets_note_what_the_engines_contract_alone_reaches() -> None:
    from bench.report import Figure
    from bench.side_by_side import (
        BARE,
        CONTRACT,
        CONTRACT_CSRF,
        CONTRACT_REISSUE,
        CSRF,
        REISSUE,
        SESSION,
        STRAIGHT,
        STRAIGHT_CSRF,
        STRAIGHT_REISSUE,
        _column,
        route_goals,
    )

    fast = _column("httptools + uvloop")
    rates = {SESSION: 60.0, STRAIGHT: 80.0, CONTRACT: 72.0, REISSUE: 40.0,
             STRAIGHT_REISSUE: 50.0, CONTRACT_REISSUE: 45.0, CSRF: 50.0, STRAIGHT_CSRF: 80.0,
             CONTRACT_CSRF: 60.0, BARE: 100.0}  # fmt: skip
    goals = route_goals([Figure("s", row, fast, rate) for row, rate in rates.items()])
    assert [goal.note for goal in goals] == [
        "through the engine's Request and Response: ×0.90",
        "through the engine's Request and Response: ×0.90",
        "made in straight-line code: ×0.80; through the engine's Request and Response: ×0.60",
    ]
