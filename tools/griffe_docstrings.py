"""A griffe extension for the API reference (``mkdocs.yml``): our docstrings are written
in reStructuredText's habits, the site renders Markdown.

* ``:class:`~a.B``` and the other roles become code (``B``), ````x```` becomes ```x```;
* ``>>>`` examples become ``pycon`` code blocks, ``Run it::`` literal blocks ``text``
  ones, instead of quotes and paragraphs.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):`~?([^`]+)`")
DOUBLE_BACKTICKS = re.compile(r"``([^`]+)``")


def markdown(text: str) -> str:
    """``text``, a docstring written for reStructuredText, as Markdown."""
    out: list[str] = []
    lines = text.splitlines()
    index, fenced = 0, False
    while index < len(lines):
        line = lines[index]
        stripped = line.lstrip()
        if stripped.startswith("```") or fenced:  # Markdown already (a second pass too)
            fenced ^= stripped.startswith("```")
            out.append(line)
            index += 1
            continue
        if stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            block = []
            while index < len(lines) and lines[index].strip() and lines[index].startswith(indent):
                block.append(lines[index][len(indent) :])
                index += 1
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
            continue
        if line.rstrip().endswith("::") and not line.rstrip().endswith(":::"):
            out.append(line.rstrip()[:-1])  # "Run it::" reads "Run it:"
            index += 1
            block = []
            while index < len(lines) and (not lines[index].strip() or lines[index][:1] == " "):
                block.append(lines[index])
                index += 1
            code = [b for b in block if b.strip()]
            if code:
                margin = min(len(b) - len(b.lstrip()) for b in code)
                first, last = block.index(code[0]), len(block) - block[::-1].index(code[-1])
                out += ["", "```text", *(b[margin:] for b in block[first:last]), "```", ""]
            else:
                out += block
            continue
        out.append(_inline(line))
        index += 1
    return "\n".join(out)


def _inline(line: str) -> str:
    line = ROLE.sub(lambda m: f"`{m.group(1).split('.')[-1]}`", line)
    return DOUBLE_BACKTICKS.sub(r"`\1`", line)


class RestructuredToMarkdown(griffe.Extension):
    """Rewrites every docstring once the tree is loaded, and leaves ``__slots__`` out."""

    def on_object(self, *, obj: griffe.Object, **_: Any) -> None:
        """Rewrite ``obj``'s docstring (aliases share their target's)."""
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)

    def on_package(self, *, pkg: griffe.Module, **_: Any) -> None:
        """A package's own docstring (the top ones are not among the objects above)."""
        self.on_object(obj=pkg)

    def on_class_members(self, *, cls: griffe.Class, **_: Any) -> None:
        """``__slots__`` is how a class is stored, not what it offers."""
        if "__slots__" in cls.members:
            cls.del_member("__slots__")
