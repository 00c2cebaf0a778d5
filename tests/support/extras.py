"""The project's extras (pyproject.toml) and what they install, for the tests that check a
``make`` target installs only what it runs."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.markers import Marker

ROOT = Path(__file__).parents[2]
PROJECT: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
"""pyproject.toml's ``[project]`` table."""

IMPORTED_DISTRIBUTIONS = """
import sys
from importlib.metadata import packages_distributions
found = packages_distributions()
names = {m.partition(".")[0] for m in sys.modules if not m.startswith("_")}
names -= set(sys.stdlib_module_names)
print(" ".join(sorted({d for n in names for d in found.get(n, [])})))
"""
"""Python that prints (on its last line) the distributions of the modules imported so far:
the end of a script that first imports or runs what a target runs."""


def normalized(name: str) -> str:
    """A distribution's name as pip compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_closure(requirements: list[str]) -> set[str]:
    """The distributions ``requirements`` install, with theirs (as installed here), normalized."""
    seen: set[str] = set()
    todo: list[tuple[str, str | None]] = [(r, None) for r in requirements]
    while todo:
        requirement, wanted = todo.pop()
        spec, _, marker = requirement.partition(";")
        if marker and not Marker(marker).evaluate({"extra": wanted or ""}):
            continue  # another extra's, or for another platform or Python
        name = re.match(r"[A-Za-z0-9._-]+", spec.strip())
        assert name is not None
        extras = re.search(r"\[([^\]]+)\]", spec)
        if normalized(name.group(0)) in seen and extras is None:
            continue
        seen.add(normalized(name.group(0)))
        for extra in extras.group(1).split(",") if extras else [None]:
            todo += [(r, extra) for r in _requires(name.group(0))]
    return seen


def _requires(name: str) -> list[str]:
    """What distribution ``name`` requires, as its metadata says; this project's from this
    pyproject.toml (the installed metadata may be an older checkout's)."""
    if normalized(name) != normalized(PROJECT["name"]):
        return metadata.requires(name) or []
    own = list(PROJECT["dependencies"])
    for extra, requirements in PROJECT["optional-dependencies"].items():
        for requirement in requirements:
            spec, _, marker = requirement.partition(";")
            condition = f'({marker}) and extra == "{extra}"' if marker else f'extra == "{extra}"'
            own.append(f"{spec}; {condition}")
    return own
