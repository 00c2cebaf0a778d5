"""The Auth.js peer: ``server.mjs`` under node, with the npm packages the bench installs.

``@auth/core`` at the version the interop tests use, ``@auth/pg-adapter`` (which pins that
same ``@auth/core``) and ``pg``, installed once with npm into
``~/.cache/sansio-auth/npm/bench-authjs`` (``XDG_CACHE_HOME`` honoured) and reused.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from npm_cache import node_missing, npm_install

__all__ = ["PACKAGES", "SERVER", "install", "node_missing", "node_version"]

PACKAGES = {"@auth/core": "0.41.3", "@auth/pg-adapter": "1.11.3", "pg": "8.23.1"}
SERVER = Path(__file__).with_name("server.mjs")


def install() -> Path:
    """Install the packages unless they are there; their root."""
    return npm_install("bench-authjs", PACKAGES)


def node_version() -> str:
    """``node --version``."""
    return subprocess.run(
        ["node", "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
