"""The performance targets, each checked against figures of the same run: a ratio of two
figures (at least ``wanted``) or a cost in µs (at most ``wanted``). ``python -m bench``
prints them last, each with its measured value and whether it is met."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Goal:
    """A target: ``measured`` against ``wanted`` (``unit`` "×": at least, or at most with
    ``at_most``; "µs": at most); ``measured`` is ``None`` when its figures could not be taken
    (said in ``note``)."""

    name: str
    measured: float | None
    wanted: float
    unit: str = "×"
    note: str = ""
    at_most: bool = False

    @property
    def met(self) -> bool | None:
        """Whether the target is met; ``None`` when not measured."""
        if self.measured is None:
            return None
        if self.unit == "µs" or self.at_most:
            return self.measured <= self.wanted
        return self.measured >= self.wanted

    def shown(self, value: float) -> str:
        """``value`` in this goal's unit."""
        return f"{value:.1f} µs" if self.unit == "µs" else f"×{value:.2f}"

    def as_json(self) -> dict[str, object]:
        """The goal for the JSON file."""
        return {"name": self.name, "measured": self.measured, "wanted": self.wanted,
                "unit": self.unit, "met": self.met, "note": self.note}  # fmt: skip


def ratio(figures: dict[str, float], ours: str, theirs: str) -> float | None:
    """``figures[ours] / figures[theirs]``, or ``None`` when either is missing."""
    if ours not in figures or theirs not in figures or not figures[theirs]:
        return None
    return figures[ours] / figures[theirs]


def goals_table(goals: Iterable[Goal]) -> str:
    """The targets, one line each: measured, wanted, met."""
    goals = list(goals)
    rows = [["target", "measured", "wanted", "met"]]
    for goal in goals:
        measured = "—" if goal.measured is None else goal.shown(goal.measured)
        sign = "≤" if goal.unit == "µs" or goal.at_most else "≥"
        met = {True: "yes", False: "NO", None: "not measured"}[goal.met]
        rows.append([goal.name, measured, f"{sign} {goal.shown(goal.wanted)}", met])
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["\nTargets (each from figures of this run)"]
    for row in rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    notes = [f"  {goal.name}: {goal.note}" for goal in goals if goal.note]
    return "\n".join(lines + notes).rstrip()
