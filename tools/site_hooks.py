"""MkDocs hooks of the documentation site (``mkdocs.yml``).

The docs' fenced blocks carry words for their tests after the language (``python
continued given=AUTH_SECRET``, ``sh not-run: <why>``: see ``tests/docs/test_docs.py`` and
``test_blocks.py``). They mean nothing to a reader, and Markdown would not take them for a
language: the site shows the language alone.
"""

from __future__ import annotations

import re
from typing import Any

FENCE_WORDS = re.compile(r"^```(python|sh)[ \t]+[^\n]*$", re.M)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """``markdown`` with each fence's test words dropped."""
    return FENCE_WORDS.sub(r"```\1", markdown)
