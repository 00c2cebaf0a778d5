"""The Auth.js migration guide's generated parts are current, and every Auth.js name it
gives is one ``@auth/core`` declares (its TypeScript declarations, installed from npm as the
interop tests install it): an option renamed or dropped upstream, or a name mistyped here,
fails."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from npm_cache import require_npm

from sansio_auth import AuthConfig
from tools.migration import (
    GUIDE,
    NEXT_AUTH_ONLY,
    NOT_HERE,
    NOT_IN_AUTHJS,
    authjs_name,
    guide_with_tables,
    options,
)

AUTHJS_CORE = "0.41.3"  # the version tests/interop pins


def test_the_guide_is_generated_from_the_config_records() -> None:
    text = GUIDE.read_text()
    assert text == guide_with_tables(text), "run `make docs`"


def test_every_option_is_in_the_table() -> None:
    table = GUIDE.read_text()
    for option, _ in options():
        assert f"| `{option}` |" in table, option
    assert "| `sessionMaxAge` |" not in table
    assert authjs_name("session.max_age") == "session.maxAge"
    assert authjs_name("skip_csrf_check") == "skipCSRFCheck"
    assert authjs_name("two_factor") is None
    assert {name.split(".")[0] for name, _ in options()} == {
        f.name for f in AuthConfig.__dataclass_fields__.values()
    }


def interface_block(text: str, opening: str) -> str:
    """The body of the declaration that starts with ``opening`` (braces balanced)."""
    start = text.index("{", text.index(opening)) + 1
    depth, index = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        index += 1
    return text[start : index - 1]


def members(block: str) -> set[str]:
    """The member names at the top level of a declaration's body."""
    names, depth = set(), 0
    for line in block.splitlines():
        if depth == 0 and (match := re.match(r"\s*(\w+)\??\s*[:(]", line)):
            names.add(match[1])
        depth += line.count("{") - line.count("}")
    return names


@pytest.fixture(scope="module")
def declarations() -> dict[str, str]:
    """``@auth/core``'s type declarations: path in the package → text."""
    prefix = require_npm("authjs-core", {"@auth/core": AUTHJS_CORE})
    core = Path(prefix) / "node_modules" / "@auth" / "core"
    return {str(path.relative_to(core)): path.read_text() for path in core.rglob("*.d.ts")}


@pytest.mark.e2e
def test_every_authjs_name_is_declared_by_authjs(declarations: dict[str, str]) -> None:
    config = interface_block(declarations["index.d.ts"], "export interface AuthConfig {")
    top = members(config)
    types, logger = declarations["types.d.ts"], declarations["lib/utils/logger.d.ts"]
    nested = {
        "session": members(interface_block(config, "session?: {")),
        "callbacks": members(interface_block(config, "callbacks?: {")),
        "events": members(interface_block(config, "events?: {")),
        "jwt": members(interface_block(declarations["jwt.d.ts"], "export interface JWTOptions {")),
        "pages": members(interface_block(types, "export interface PagesOptions {")),
        "theme": members(interface_block(types, "export interface Theme {")),
        "logger": members(interface_block(logger, "export interface LoggerInstance extends")),
    }
    ours = {name for option, _ in options() if (name := authjs_name(option))} - NEXT_AUTH_ONLY
    unknown = sorted(
        name
        for name in ours
        if not (
            name in top if "." not in name else name.split(".")[1] in nested[name.split(".")[0]]
        )
    )
    assert not unknown, f"names Auth.js does not declare: {unknown}"
    mapped = {name.split(".")[0] for name in ours}
    assert top - mapped - set(NOT_HERE) == set(), "Auth.js options the guide does not map"
    for option in NEXT_AUTH_ONLY:  # next-auth's own, not @auth/core's
        head, _, rest = option.partition(".")
        assert rest not in nested[head], option
    for option in NOT_IN_AUTHJS:  # what we say Auth.js lacks, it lacks
        head, _, rest = option.partition(".")
        assert (rest or head) not in (nested.get(head) if rest else top), option
