"""The server's resident memory: samples from ``/proc`` and the trend through them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


def rss_kib(pid: int) -> int:
    """The resident set size of process ``pid`` in KiB (Linux ``/proc/<pid>/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


@dataclass(frozen=True)
class Sample:
    """RSS ``kib`` at ``seconds`` since the measured window began."""

    seconds: float
    kib: int


def slope_kib_per_minute(samples: Sequence[Sample]) -> float:
    """The least-squares slope of RSS over time, in KiB per minute."""
    if len(samples) < 2:
        raise ValueError("a slope needs at least two samples")
    n = len(samples)
    mean_t = sum(s.seconds for s in samples) / n
    mean_r = sum(s.kib for s in samples) / n
    spread = sum((s.seconds - mean_t) ** 2 for s in samples)
    if spread == 0:
        raise ValueError("the samples must be taken at different times")
    covariance = sum((s.seconds - mean_t) * (s.kib - mean_r) for s in samples)
    return covariance / spread * 60
