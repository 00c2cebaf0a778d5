"""The per-request count of ``python -m bench.callgrind``: its reading of callgrind's output,
its estimate, and (where valgrind is installed) a real count."""

from __future__ import annotations

import shutil

import pytest

from bench.callgrind import WEIGHTS, estimate, per_request, read_totals

DUMP = """\
version: 1
creator: callgrind-3.19.0
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
fl= (1) x.c
fn= (1) f
0 5 1 1 0 0 0 0 0 0 0 0 0 0
totals: 1000 300 200 7 5 3 1 2 0 90 11 20 4
"""


def test_the_totals_of_a_callgrind_dump_and_what_they_cost() -> None:
    totals = read_totals(DUMP)
    assert totals["Ir"] == 1000
    assert totals["Bim"] == 4
    misses = 10 * (7 + 5 + 3) + 100 * (1 + 2 + 0)
    assert estimate(totals) == 1000 + misses + 15 * (11 + 4)
    assert set(WEIGHTS) <= set(totals)
    with pytest.raises(ValueError, match="no totals"):
        read_totals("events: Ir\n")


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")
def test_a_request_to_a_real_server_is_counted() -> None:
    bare = per_request("bench.bare:create_app", 64, path="/bare")
    straight = per_request("bench.bare:create_straight_app", 64)
    assert 10_000 < bare["Ir"] < straight["Ir"]  # the straight read decrypts a token too
