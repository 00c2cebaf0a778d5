"""How long and how often the HTTP figures are measured: ``--seconds``, ``--rounds``,
``--quick``, ``--targets``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    """``seconds`` per measurement, ``rounds`` alternating rounds, ``warm_up`` each server
    first (node's JIT and uvicorn's first requests are not what is measured); with
    ``targets_only`` (``--targets``), only the sections the targets are taken from."""

    seconds: float
    rounds: int
    warm_up: bool
    targets_only: bool = False

    def describe(self) -> str:
        """E.g. "best of 5 alternating rounds of 2 s"."""
        return f"best of {self.rounds} alternating round(s) of {self.seconds:g} s"
