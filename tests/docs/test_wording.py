"""The docs, docstrings and messages speak of frameworks and behaviours: not of the
specification's letters ("adapter B"), rule numbers ("rule 3") or "the spec's" names, which
mean nothing to a user who has not read it. The former class names stay only as aliases."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
SPEC_WORDS = re.compile(
    r"\badapters? [ABC]\b|\brules? [0-9]|\bthe spec'?s?\b|\bspec names?\b|\bAdapter[BC]Auth",
    re.IGNORECASE,
)
ALIAS = re.compile(r"former names?|^\s*\"Adapter[BC]Auth\w*\",$|^Adapter[BC]Auth\w* = ")


def sources() -> list[Path]:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    code = [p for d in ("sansio_auth", "io_bindings", "examples") for p in (ROOT / d).rglob("*.py")]
    templates = sorted((ROOT / "examples").rglob("*.html"))
    return [*docs, *sorted(code), *templates]


def test_no_spec_letters_or_rule_numbers() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sources()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if SPEC_WORDS.search(line) and not ALIAS.search(line)
    ]
    assert not found, "\n".join(found)


def test_the_pattern_catches_what_it_should() -> None:
    for text in ("Adapter C for Django", "(rule 3)", "the spec's targets", "AdapterBAuth(config)"):
        assert SPEC_WORDS.search(text), text
    for text in ("the adapter's cookies", "RuleBasedStateMachine", "a spec: CookieSpec"):
        assert not SPEC_WORDS.search(text), text
