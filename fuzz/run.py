"""Run every atheris target for a set time and print how many inputs each ran.

    python -m fuzz.run [--seconds 60] [TARGET ...]     # make fuzz (FUZZ_SECONDS)

Each target runs in its own process from its seed corpus (``fuzz/corpus/<target>/``,
read only) with a scratch corpus for what it finds; a crash leaves its input in
``fuzz/findings/`` and makes the exit status 1.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from fuzz.targets import TARGETS

HERE = Path(__file__).resolve().parent
EXECUTED = re.compile(rb"stat::number_of_executed_units:\s*(\d+)")
COVERAGE = re.compile(rb"cov: (\d+)")


def run_target(name: str, seconds: int, seed: int = 0) -> tuple[int, int, bool, str]:
    """Fuzz ``name`` for ``seconds``: (inputs executed, coverage edges, crashed, log tail)."""
    findings = HERE / "findings"
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{name}-") as scratch:
        command = [sys.executable, "-m", "fuzz.atheris_target", name,
                   f"-max_total_time={seconds}", "-print_final_stats=1", "-timeout=10",
                   "-rss_limit_mb=2048", f"-seed={seed}", f"-artifact_prefix={findings}/{name}-",
                   scratch, str(HERE / "corpus" / name)]  # fmt: skip
        findings.mkdir(exist_ok=True)
        result = subprocess.run(
            command, cwd=HERE.parent, capture_output=True, timeout=seconds + 120
        )
    output = result.stdout + result.stderr
    executed = EXECUTED.search(output)
    edges = COVERAGE.findall(output)
    tail = output.decode(errors="replace").strip().splitlines()[-15:]
    return (int(executed[1]) if executed else 0, int(edges[-1]) if edges else 0,
            result.returncode != 0, "\n".join(tail))  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz.run", description=__doc__)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0, help="libFuzzer's seed (0: random)")
    parser.add_argument("targets", nargs="*", default=sorted(TARGETS))
    args = parser.parse_args(argv)
    failed = False
    print(f"{'target':<24}{'inputs':>12}{'edges':>8}  result", flush=True)
    for name in args.targets:
        executed, edges, crashed, tail = run_target(name, args.seconds, args.seed)
        failed |= crashed
        print(f"{name:<24}{executed:>12}{edges:>8}  {'CRASH' if crashed else 'ok'}", flush=True)
        if crashed:
            print(tail, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
