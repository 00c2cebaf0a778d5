"""The load generator: ``wrk -t1 -c16`` pinned to core 1 (the server has core 0), or, where
wrk is not installed, the asyncio client of :mod:`bench.http_load` pinned the same way.

Each target is measured in alternating rounds (every target once per round, so that all
see the same machine load) and its figure is its best round: on a shared machine other
work only ever slows a server down, so the best round is the nearest to what it can do.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from live_server import ROOT

from .servers import LOAD_CORE, pinned

K = TypeVar("K", bound=Hashable)

CONNECTIONS = 16
WARM_UP_SECONDS = 1


def generator() -> str:
    """The load generator this machine has: ``wrk`` or the asyncio client."""
    return "wrk" if shutil.which("wrk") else "asyncio client"


def described() -> str:
    """The load generator and its connections, for the tables' titles."""
    if generator() == "wrk":
        return f"wrk -t1 -c{CONNECTIONS}"
    return f"the asyncio client ({CONNECTIONS} connections)"


@dataclass(frozen=True)
class Target:
    """``GET url`` with ``cookie``; ``pin``: the load generator on :data:`LOAD_CORE`."""

    url: str
    cookie: str = ""
    pin: bool = True


def first_visit(url: str, cookie: str, expect: Callable[[Any], bool], *, keep: bool) -> Target:
    """``GET url`` once, fail unless the JSON answer is what ``expect`` wants; the target.

    With ``keep`` the target sends back what a browser would then hold: ``cookie`` updated
    with the answer's ``Set-Cookie`` (so a server that sets cookies on a first visit, as
    Auth.js does, is not made to set them on every request)."""
    request = urllib.request.Request(url, headers={"cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=60) as response:
        body = json.loads(response.read())
        set_cookies = response.headers.get_all("set-cookie") or []
    if not expect(body):
        raise RuntimeError(f"unexpected answer from {url}: {body!r}")
    if not keep:
        return Target(url, cookie)
    jar = dict(pair.split("=", 1) for pair in cookie.split("; ") if pair)
    jar.update(line.split(";", 1)[0].split("=", 1) for line in set_cookies)
    return Target(url, "; ".join(f"{name}={value}" for name, value in jar.items()))


def _wrk(target: Target, seconds: float) -> float:
    command = ["wrk", "-t1", f"-c{CONNECTIONS}", f"-d{max(1, round(seconds))}s", target.url]
    if target.cookie:
        command[1:1] = ["-H", f"Cookie: {target.cookie}"]
    out = subprocess.run(
        pinned(LOAD_CORE if target.pin else None, command),
        capture_output=True, text=True, check=True, timeout=seconds + 60,
    ).stdout  # fmt: skip
    if "Non-2xx" in out or "Socket errors" in out:
        raise RuntimeError(f"wrk saw failed requests against {target.url}:\n{out}")
    found = re.search(r"^Requests/sec:\s+([\d.]+)", out, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no Requests/sec in wrk's output:\n{out}")
    return float(found.group(1))


def _asyncio_client(target: Target, seconds: float) -> float:
    command = [sys.executable, "-m", "bench.http_load", target.url, str(seconds)]
    done = subprocess.run(
        pinned(LOAD_CORE if target.pin else None, command),
        capture_output=True, text=True, check=False, timeout=seconds + 60,
        env={**os.environ, "BENCH_COOKIE": target.cookie, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the load client failed on {target.url}:\n{done.stderr}")
    return float(done.stdout)


def requests_per_second(target: Target, seconds: float) -> float:
    """Requests per second of ``target`` under :data:`CONNECTIONS` keep-alive connections."""
    measure = _wrk if generator() == "wrk" else _asyncio_client
    return measure(target, seconds)


def alternating(
    targets: Mapping[K, Target], seconds: float, rounds: int, *, warm_up: bool
) -> dict[K, list[float]]:
    """Each target's requests per second in each of ``rounds`` alternating rounds."""
    if warm_up:
        for target in targets.values():
            requests_per_second(target, WARM_UP_SECONDS)
    rates: dict[K, list[float]] = {key: [] for key in targets}
    for _ in range(rounds):
        for key, target in targets.items():
            rates[key].append(requests_per_second(target, seconds))
    return rates


def pooled(rates: Mapping[tuple[K, int], list[float]]) -> dict[K, list[list[float]]]:
    """The rounds of every copy of a server (:func:`~bench.servers.copies_of`), by server:
    one list of rounds per process (see :meth:`~bench.report.Figure.of_processes`)."""
    joined: dict[K, list[list[float]]] = {}
    for (key, _), rounds in rates.items():
        joined.setdefault(key, []).append(rounds)
    return joined
