"""The Auth.js peer: ``server.mjs`` under node, with the npm packages the bench installs.

``@auth/core`` at the version the interop tests use, ``@auth/pg-adapter`` (which pins that
same ``@auth/core``) and ``pg``, installed once with npm into
``~/.cache/sansio-auth/npm/bench-authjs`` (``XDG_CACHE_HOME`` honoured) and reused.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path

PACKAGES = {"@auth/core": "0.41.3", "@auth/pg-adapter": "1.11.3", "pg": "8.23.1"}
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sansio-auth" / "npm"
ROOT = CACHE / "bench-authjs"
SERVER = Path(__file__).with_name("server.mjs")


def node_missing() -> str | None:
    """Why the peer cannot run here (node or npm not installed), or ``None``."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not installed (run `make system-deps`)" if missing else None


def _installed() -> bool:
    for name, version in PACKAGES.items():
        manifest = ROOT / "node_modules" / name / "package.json"
        if not manifest.exists() or json.loads(manifest.read_text())["version"] != version:
            return False
    return True


def install() -> Path:
    """Install the packages unless they are there (one installer at a time); their root."""
    if _installed():
        return ROOT
    ROOT.mkdir(parents=True, exist_ok=True)
    with (CACHE / "bench-authjs.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed():
            packages = [f"{name}@{version}" for name, version in PACKAGES.items()]
            subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(ROOT), *packages],
                check=True, capture_output=True, timeout=600,
            )  # fmt: skip
    if not _installed():
        raise RuntimeError(f"npm did not install {PACKAGES} into {ROOT}")
    return ROOT


def node_version() -> str:
    """``node --version``."""
    return subprocess.run(
        ["node", "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
