"""npm packages that the tests and the bench run under node, installed once into a cache.

Each set of packages has its own prefix under ``~/.cache/sansio-auth/npm`` (``XDG_CACHE_HOME``
honoured), is installed at exact versions, and is reused while those versions are there.
Node and npm come from Debian (``make system-deps``).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sansio-auth" / "npm"


def node_missing() -> str | None:
    """Why node cannot run here (node or npm not installed), or ``None``."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not installed (run `make system-deps`)" if missing else None


def installed(prefix: Path, packages: Mapping[str, str]) -> bool:
    """Whether every package is installed under ``prefix`` at its version."""
    for name, version in packages.items():
        manifest = prefix / "node_modules" / name / "package.json"
        try:
            if json.loads(manifest.read_text())["version"] != version:
                return False
        except (OSError, ValueError, KeyError):
            return False
    return True


def npm_install(name: str, packages: Mapping[str, str], *, timeout: float = 600) -> Path:
    """``packages`` (name → exact version) installed into the cache's prefix ``name`` unless
    they are there already (one installer at a time across processes); the prefix.

    :class:`subprocess.CalledProcessError` when npm fails.
    """
    prefix = CACHE / name
    if installed(prefix, packages):
        return prefix
    prefix.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not installed(prefix, packages):
            specs = [f"{package}@{version}" for package, version in packages.items()]
            subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *specs],
                check=True, capture_output=True, timeout=timeout,
            )  # fmt: skip
    if not installed(prefix, packages):
        raise RuntimeError(f"npm did not install {dict(packages)} into {prefix}")
    return prefix


def node_json(script: Path, payload: object, env: Mapping[str, str]) -> object:
    """Run ``script`` under node with ``payload`` as JSON on stdin (and ``env`` added to the
    environment); the JSON on the last line of its output."""
    done = subprocess.run(
        ["node", str(script)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        env={**os.environ, **env},
    )
    if done.returncode != 0:
        raise RuntimeError(f"node failed:\n{done.stderr.decode(errors='replace')}")
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def require_npm(name: str, packages: Mapping[str, str]) -> Path:
    """For a test fixture: :func:`npm_install`, skipping the test when node is not installed
    and failing it when npm fails."""
    import pytest

    missing = node_missing()
    if missing:
        pytest.skip(missing)
    try:
        return npm_install(name, packages)
    except subprocess.CalledProcessError as err:
        pytest.fail(f"npm could not install {dict(packages)}:\n{err.stderr.decode()}")
