"""Every fenced block of README.md and docs/ is checked, so a broken example fails CI.

The info string says what a block is and how it is checked:

* ```` ```python ... ````: run (or compiled, or run under pytest): see ``test_docs.py``;
* ```` ```sh run ````: shell commands run with bash from the repository root, the test's
  Python first on ``PATH``; each must succeed. For commands cheap enough to run in a test
  (``python -m io_bindings.demo_op --help``);
* ```` ```sh not-run: <why> ````: not run, and the reason says why (it installs packages,
  it serves until Ctrl-C, ...), ideally naming the test that covers it instead;
* ```` ```django ````: a Django template, parsed with the library's tags
  (``{% load sansio_auth %}``): an unknown tag or a bad argument list fails;
* ```` ```text ````: output, a diagram or a layout: not code;
* ```` ```mermaid ````: a diagram the site draws (``test_site.py`` checks it reaches the page);
* ```` ```sql ````: SQL for the reader to run on their own database: not run.

A block without a language, or with another one, fails; so does an indented fence (in a
list item), which these checks would not see. So does a ``pip install`` (in any block or
sentence) naming an extra that ``pyproject.toml`` does not define.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```$", re.S | re.M)
LANGUAGES = ("python", "sh", "django", "text", "mermaid", "sql")
NOT_RUN = re.compile(r"^not-run: \S.*$")


@dataclass(frozen=True)
class Block:
    """One fenced block of a doc."""

    path: Path
    line: int
    language: str
    marker: str
    code: str

    @property
    def key(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    text = path.read_text()
    found = []
    for match in FENCE.finditer(text):
        language, _, marker = match.group(1).strip().partition(" ")
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(path, line, language, marker.strip(), match.group(2)))
    return found


def every_block() -> list[Block]:
    return [block for path in doc_files() for block in blocks(path)]


def test_every_block_says_what_it_is_and_how_it_is_checked() -> None:
    wrong = []
    for block in every_block():
        if block.language not in LANGUAGES:
            wrong.append(f"{block.key}: language {block.language!r} is not one of {LANGUAGES}")
        elif block.language == "sh" and block.marker != "run" and not NOT_RUN.match(block.marker):
            wrong.append(f"{block.key}: a sh block is `sh run` or `sh not-run: <why>`")
        elif block.language in ("django", "text", "mermaid", "sql") and block.marker:
            wrong.append(f"{block.key}: a {block.language} block takes no marker")
    for path in doc_files():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r"\s+```", line):  # in a list item: the checks would not see it
                wrong.append(f"{path.relative_to(ROOT)}:{number}: an indented fence")
    assert not wrong, "\n".join(wrong)


def test_the_convention_is_strict(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("```\nx\n```\n\n```sh not-run:\ny\n```\n\n```sh not-run: it serves\nz\n```\n")
    bare, no_reason, fine = blocks(doc)
    assert bare.language not in LANGUAGES
    assert not NOT_RUN.match(no_reason.marker)
    assert NOT_RUN.match(fine.marker)


SHELL = [block for block in every_block() if block.language == "sh" and block.marker == "run"]


@pytest.mark.parametrize("block", SHELL, ids=lambda block: block.key)
def test_every_runnable_shell_block_succeeds(block: Block) -> None:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.code],
        cwd=ROOT, env={**os.environ, "PATH": path}, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{block.key}:\n{done.stdout}{done.stderr}"


def test_some_shell_blocks_run() -> None:
    assert len(SHELL) >= 2


TEMPLATES = [block for block in every_block() if block.language == "django"]


@pytest.mark.parametrize("block", TEMPLATES, ids=lambda block: block.key)
def test_every_django_template_parses_with_the_librarys_tags(block: Block) -> None:
    from django.template import Engine, TemplateSyntaxError

    engine = Engine(libraries={"sansio_auth": "io_bindings.django.templatetags.sansio_auth"})
    engine.from_string(block.code)
    with pytest.raises(TemplateSyntaxError):  # the check has teeth: a misspelt tag fails
        engine.from_string(block.code.replace("{% ", "{% x", 1))


PIP_INSTALL = re.compile(r"pip install ([^\n`]*)")
EXTRAS = re.compile(r"(?:sansio-auth|\.)\[([a-z0-9_,\s-]+)\]")  # ours, not a driver's


def documented_extras() -> dict[str, set[str]]:
    """Each extra a ``pip install`` of README.md or docs/ names, with where."""
    found: dict[str, set[str]] = {}
    for path in doc_files():
        for command in PIP_INSTALL.findall(path.read_text()):
            for group in EXTRAS.findall(command):
                for extra in group.split(","):
                    found.setdefault(extra.strip(), set()).add(str(path.relative_to(ROOT)))
    return found


def defined_extras() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return set(project["optional-dependencies"])


def test_every_documented_extra_exists() -> None:
    documented = documented_extras()
    missing = {k: sorted(where) for k, where in documented.items() if k not in defined_extras()}
    assert not missing, f"extras named in the docs but not in pyproject.toml: {missing}"
    assert {"fastapi", "aiohttp", "django"} <= set(documented)


def test_the_readme_lists_every_extra() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("| extra | what it adds |") :].split("\n\n")[0]
    listed = {
        name
        for row in table.splitlines()[2:]
        for name in re.findall(r"`([a-z]+)`", row.split("|")[1])
    }
    assert listed == defined_extras()
