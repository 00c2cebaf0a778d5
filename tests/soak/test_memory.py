"""The RSS trend the soak judges memory by."""

from __future__ import annotations

import os

import pytest

from soak.memory import Sample, rss_kib, slope_kib_per_minute


def test_the_slope_is_the_least_squares_fit_in_kib_per_minute() -> None:
    steady = [Sample(t, 1000 + 2 * t) for t in (0.0, 5.0, 10.0, 15.0)]  # 2 KiB a second
    assert slope_kib_per_minute(steady) == pytest.approx(120.0)
    noisy = [Sample(0, 100), Sample(1, 300), Sample(2, 100), Sample(3, 300)]
    assert slope_kib_per_minute(noisy) == pytest.approx(40.0 * 60)  # fit: 40 KiB a second
    flat = [Sample(t, 500) for t in range(5)]
    assert slope_kib_per_minute(flat) == 0


def test_a_slope_needs_two_moments() -> None:
    with pytest.raises(ValueError, match="two samples"):
        slope_kib_per_minute([Sample(0, 1)])
    with pytest.raises(ValueError, match="different times"):
        slope_kib_per_minute([Sample(1, 1), Sample(1, 2)])


def test_rss_of_this_process() -> None:
    before = rss_kib(os.getpid())
    grown = b"x" * (64 * 1024 * 1024)  # written, so resident
    assert rss_kib(os.getpid()) - before > 32 * 1024
    del grown
