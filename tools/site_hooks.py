"""MkDocs hooks of the documentation site (``mkdocs.yml``).

The docs' fenced blocks carry words for their tests after the language (``python
continued given=AUTH_SECRET``, ``sh not-run: <why>``: see ``tests/docs/test_docs.py`` and
``test_blocks.py``). They mean nothing to a reader, and Markdown would not take them for a
language: the site shows the language alone.

The changelog page is CHANGELOG.md, whose links to ``docs/...`` are written from the
repository's root: on the site they are made relative to it.

The site's address is :data:`sansio_auth.errors.DOCS_URL`, the one log lines link to.

The diagrams are drawn in the reader's browser by Mermaid, served with the site: its
script comes from the npm registry, a pinned version installed once into the same cache as
the tests' npm packages (``tests/support/npm_cache.py``; node and npm from ``make
system-deps``), and is copied into the built site; the theme then uses it instead of
fetching it from a CDN.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support")]  # the code documented here

from npm_cache import node_missing, npm_install  # noqa: E402

from sansio_auth.errors import DOCS_URL  # noqa: E402

MERMAID_VERSION = "11.12.2"
"""The Mermaid the site serves (and the tests parse the diagrams with)."""
MERMAID_SCRIPT = f"assets/javascripts/mermaid-{MERMAID_VERSION}.min.js"

FENCE_WORDS = re.compile(r"^```(python|sh)[ \t]+[^\n]*$", re.M)
CHANGELOG = '--8<-- "CHANGELOG.md"'
ROOT_LINK = re.compile(r"\]\(docs/")


def on_page_markdown(markdown: str, *, config: Any, **_: Any) -> str:
    """``markdown`` with each fence's test words dropped, and the changelog put in."""
    if markdown.strip() == CHANGELOG:
        changelog = Path(config["config_file_path"]).parent / "CHANGELOG.md"
        markdown = ROOT_LINK.sub("](", changelog.read_text())
    return FENCE_WORDS.sub(r"```\1", markdown)


def on_config(config: Any, **_: Any) -> Any:
    """The site's address, and Mermaid's script on every page."""
    config["site_url"] = DOCS_URL
    config["extra_javascript"].append(MERMAID_SCRIPT)
    return config


def on_files(files: Files, *, config: Any, **_: Any) -> Files:
    """The site's files, with Mermaid's script (installed from npm when not cached)."""
    missing = node_missing()
    if missing:
        raise PluginError(f"the diagrams need Mermaid from npm, but {missing}")
    try:
        prefix = npm_install("mermaid", {"mermaid": MERMAID_VERSION})
    except (OSError, subprocess.SubprocessError, RuntimeError) as err:
        detail = getattr(err, "stderr", b"") or b""
        raise PluginError(f"npm could not install Mermaid: {err}\n{detail.decode()}") from err
    script = prefix / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
    files.append(File.generated(config, MERMAID_SCRIPT, abs_src_path=str(script)))
    return files
