"""What one request costs a server, counted rather than timed: ``python -m bench.callgrind``.

Each app is served by uvicorn (uvloop + httptools) under valgrind's callgrind with its cache
and branch simulators; after a warm-up, only the server's work on ``--requests`` requests
(16 keep-alive connections, as wrk sends them) is counted. Per request: instructions, L1
misses, branch mispredictions and their weighted sum, an estimate of the cycles a request
costs with the caches as cold as a real server leaves them. Unlike a timing, the count is
the same from one run to the next (within 0.5%), so a change of 1% shows; the ratios of the
estimates have followed the ratios of wrk's requests per second within a few hundredths.

The default apps are the session read (``GET /auth/session``) written straight, through the
engine's contract only, and through the auth app; any other ``module:factory`` may be
named. Needs valgrind (``make bench-deps`` installs it).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from live_server import free_port, serve

from .app import session_cookie
from .http_load import CONNECTIONS, get, get_request

APPS = {
    "straight-line read": "bench.bare:create_straight_app",
    "through the contract": "bench.bare:create_contract_app",
    "GET /auth/session": "bench.app:create_app",
}
WARM_UP = 500
WEIGHTS = {"Ir": 1, "I1mr": 10, "D1mr": 10, "D1mw": 10, "ILmr": 100, "DLmr": 100, "DLmw": 100,
           "Bcm": 15, "Bim": 15}  # fmt: skip
"""Cycles per event: an instruction, a first-level miss, a last-level miss, a mispredicted
branch (callgrind's own rule of thumb, with the misprediction cost of today's cores)."""


def estimate(counts: Mapping[str, float]) -> float:
    """The cycles ``counts`` (callgrind's events) cost by :data:`WEIGHTS`."""
    return sum(weight * counts.get(event, 0) for event, weight in WEIGHTS.items())


def read_totals(text: str) -> dict[str, int]:
    """The event totals of a callgrind output file."""
    events: list[str] = []
    for line in text.splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("totals:"):
            return dict(zip(events, map(int, line.split()[1:]), strict=True))
    raise ValueError("no totals in the callgrind output")


async def _requests(url: str, cookie: str, count: int) -> None:
    """``count`` requests ``GET url`` over :data:`CONNECTIONS` connections; each a 200."""
    host, port, raw = get_request(url, cookie)

    async def connection(share: int) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        for _ in range(share):
            await get(reader, writer, raw)
        writer.close()

    await asyncio.gather(*(connection(count // CONNECTIONS) for _ in range(CONNECTIONS)))


def per_request(factory: str, requests: int, path: str = "/auth/session") -> dict[str, float]:
    """Callgrind's events per request of ``factory`` served by uvicorn (see the module)."""
    cookie, port = session_cookie(), free_port()
    requests -= requests % CONNECTIONS
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as directory:
        out = Path(directory) / "callgrind.out"
        command = [
            "valgrind", "--tool=callgrind", "--instr-atstart=no", "--cache-sim=yes",
            "--branch-sim=yes", f"--callgrind-out-file={out}", sys.executable, "-m", "uvicorn",
            "--factory", factory, "--loop", "uvloop", "--http", "httptools",
            "--port", str(port), "--no-access-log", "--log-level", "warning",
        ]  # fmt: skip
        with serve(command, port) as server:
            url = server.url + path
            asyncio.run(_requests(url, cookie, WARM_UP))
            control = ["callgrind_control", str(server.process.pid)]
            subprocess.run([*control, "-i", "on"], check=True, capture_output=True)
            asyncio.run(_requests(url, cookie, requests))
            subprocess.run([*control, "-i", "off"], check=True, capture_output=True)
            subprocess.run([*control, "-d"], check=True, capture_output=True)
        dump = next(Path(directory).glob("callgrind.out.*"))  # the dump taken while serving
        totals = read_totals(dump.read_text())
    return {event: count / requests for event, count in totals.items()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.callgrind", description=__doc__)
    parser.add_argument("--requests", type=int, default=1600, help="requests counted per app")
    parser.add_argument("factories", nargs="*", help="module:factory (default: the three)")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (make bench-deps installs it)")
    apps = {name: name for name in args.factories} if args.factories else APPS
    first = None
    print(f"{'per request':28} {'instructions':>12} {'L1 misses':>10} {'mispredicted':>12}"
          f" {'est. cycles':>12} {'ratio':>6}")  # fmt: skip
    for name, factory in apps.items():
        counts = per_request(factory, args.requests)
        cycles = estimate(counts)
        first = first or cycles
        misses = counts["I1mr"] + counts["D1mr"] + counts["D1mw"]
        print(f"{name:28} {counts['Ir']:12,.0f} {misses:10,.0f} "
              f"{counts['Bcm'] + counts['Bim']:12,.0f} {cycles:12,.0f} {first / cycles:6.3f}",
              flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
