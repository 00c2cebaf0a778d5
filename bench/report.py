"""The bench's figures: printed as one table per section, and written to a JSON file."""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from statistics import median
from typing import Any


@dataclass(frozen=True)
class Figure:
    """One measurement: per second, in a ``section``'s table at (``row``, ``column``);
    its ratio is ``per_second / baseline`` (what the section's title says it compares to)."""

    section: str
    row: str
    column: str
    per_second: float
    baseline: float | None = None
    rounds: tuple[float, ...] = ()
    """Each round's figure (of every process, one process after another)."""
    process_bests: tuple[float, ...] = ()
    """Each process's best round, when the server ran in several (:meth:`of_processes`)."""

    @classmethod
    def best(
        cls, section: str, row: str, column: str, rounds: list[float], baseline: float | None = None
    ) -> Figure:
        """The figure of several rounds: the best of them."""
        return cls(section, row, column, max(rounds), baseline, tuple(rounds))

    @classmethod
    def of_processes(
        cls,
        section: str,
        row: str,
        column: str,
        processes: Sequence[Sequence[float]],
        baseline: float | None = None,
    ) -> Figure:
        """The figure of a server run in several processes, each measured in every round
        (:func:`typical`)."""
        bests = tuple(max(rounds) for rounds in processes)
        every = tuple(chain.from_iterable(processes))
        return cls(section, row, column, typical(processes), baseline, every, bests)

    @property
    def ratio(self) -> float | None:
        """``per_second`` over ``baseline``, or ``None`` without a baseline."""
        return self.per_second / self.baseline if self.baseline else None


def typical(processes: Sequence[Sequence[float]]) -> float:
    """A server's figure over its processes: the median of each process's best round. The
    best round is what the process can do (other work only slows it down); processes of one
    app differ by up to 11% (where their memory landed, see docs/performance.md), a lucky
    one by as much as a target's margin, so the typical process stands for the app, not
    the luckiest."""
    return median(max(rounds) for rounds in processes)


def _by_section(figures: Iterable[Figure]) -> dict[str, list[Figure]]:
    sections: dict[str, list[Figure]] = {}
    for figure in figures:
        sections.setdefault(figure.section, []).append(figure)
    return sections


def _rows(figures: list[Figure]) -> list[list[str]]:
    """One column: per second, µs each, ratio. More: a matrix of "rate (×ratio)" cells."""
    columns = list(dict.fromkeys(f.column for f in figures))
    if len(columns) == 1:
        rows = [["", "per second", "µs each", "ratio"]]
        for f in figures:
            ratio = f"×{f.ratio:.3f}" if f.ratio is not None else ""
            rows.append([f.row, f"{f.per_second:,.0f}", f"{1e6 / f.per_second:.1f}", ratio])
        return rows
    cells = {(f.row, f.column): f for f in figures}
    rows = [["", *columns]]
    for row in dict.fromkeys(f.row for f in figures):
        line = [row]
        for column in columns:
            cell = cells.get((row, column))
            if cell is None:
                line.append("—")
                continue
            ratio = f" (×{cell.ratio:.1f})" if cell.ratio is not None else ""
            line.append(f"{cell.per_second:,.0f}{ratio}")
        rows.append(line)
    return rows


def table(figures: Iterable[Figure]) -> str:
    """Every section: its title, then its rows with aligned columns."""
    out = []
    for section, members in _by_section(figures).items():
        rows = _rows(members)
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        out.append(f"\n{section}")
        for row in rows:
            cells = zip(row, widths, strict=True)
            out.append(
                "  ".join(
                    c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(cells)
                ).rstrip()
            )
    return "\n".join(out)


def write_json(path: Path, figures: Iterable[Figure], about: Mapping[str, Any]) -> None:
    """``about`` (the machine, the command, the date) and every figure, to ``path``."""
    document = {
        **about,
        "figures": [
            {"section": f.section, "row": f.row, "column": f.column,
             "per_second": round(f.per_second, 1), "us_each": round(1e6 / f.per_second, 2),
             "ratio": None if f.ratio is None else round(f.ratio, 3),
             "rounds": [round(rate, 1) for rate in f.rounds],
             "process_bests": [round(rate, 1) for rate in f.process_bests]}
            for f in figures
        ],
    }  # fmt: skip
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def machine() -> dict[str, Any]:
    """What the figures were taken on: CPU model, cores, Python, load average at the start."""
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    loadavg = Path("/proc/loadavg")
    return {
        "cpu": model or platform.processor(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average_at_start": loadavg.read_text().split()[:3] if loadavg.exists() else None,
    }
