"""How long and how often the HTTP figures are measured: ``--seconds``, ``--rounds``,
``--quick``, ``--targets``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    """``seconds`` per measurement, ``rounds`` alternating rounds, ``warm_up`` each server
    first (node's JIT and uvicorn's first requests are not what is measured); with
    ``targets_only`` (``--targets``), only the sections the targets are taken from;
    ``copies``: how many processes serve each row of the sections whose targets compare
    two servers (the session routes, PostgreSQL): one process of an app serves up to 11%
    more or less than another of the same app (where its memory landed), as much as some
    targets' margins, so a row's figure is its typical process's: the median of their best
    rounds (:func:`~bench.report.typical`)."""

    seconds: float
    rounds: int
    warm_up: bool
    targets_only: bool = False
    copies: int = 1

    def describe(self, *, copied: bool = False) -> str:
        """E.g. "best of 5 alternating rounds of 2 s"; ``copied``: the section serves each row
        with :attr:`copies` processes (", the median of 3 processes per row")."""
        rounds = f"best of {self.rounds} alternating round(s) of {self.seconds:g} s"
        return f"{rounds}, the median of {self.copies} processes per row" if copied else rounds
