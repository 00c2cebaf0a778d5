"""MkDocs hooks of the documentation site (``mkdocs.yml``).

The docs' fenced blocks carry words for their tests after the language (``python
continued given=AUTH_SECRET``, ``sh not-run: <why>``: see ``tests/docs/test_docs.py`` and
``test_blocks.py``). They mean nothing to a reader, and Markdown would not take them for a
language: the site shows the language alone.

The changelog page is CHANGELOG.md, whose links to ``docs/...`` are written from the
repository's root: on the site they are made relative to it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

FENCE_WORDS = re.compile(r"^```(python|sh)[ \t]+[^\n]*$", re.M)
CHANGELOG = '--8<-- "CHANGELOG.md"'
ROOT_LINK = re.compile(r"\]\(docs/")


def on_page_markdown(markdown: str, *, config: Any, **_: Any) -> str:
    """``markdown`` with each fence's test words dropped, and the changelog put in."""
    if markdown.strip() == CHANGELOG:
        changelog = Path(config["config_file_path"]).parent / "CHANGELOG.md"
        markdown = ROOT_LINK.sub("](", changelog.read_text())
    return FENCE_WORDS.sub(r"```\1", markdown)
