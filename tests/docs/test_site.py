"""The documentation site builds strictly, shows every page and documents every public name.

``mkdocs build --strict`` (what ``make docs`` runs) fails on a broken link, a missing page
or an unresolved cross-reference; on top of that, these tests fail when a page of docs/ is
left out of the navigation, when a public name of a documented module has no docstring or
is missing from the API reference, when a module the reference must cover is not there,
when a Mermaid diagram does not parse (Mermaid itself, under node), names an adapter
method, a callback or an event the engine never calls, or does not reach the page as one.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import griffe
import pytest
from npm_cache import require_npm

from sansio_auth import Events

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
REFERENCE = DOCS / "reference"
DIRECTIVE = re.compile(r"^::: (\S+)$", re.M)
MERMAID = re.compile(r"^```mermaid\n(.*?)^```$", re.S | re.M)
MERMAID_PACKAGES = {"mermaid": "11.12.2", "jsdom": "27.0.0"}

REQUIRED = {
    "sansio_auth",
    "sansio_auth.errors",
    "sansio_auth.events",
    "sansio_auth.jwt",
    "sansio_auth.providers",
    "sansio_auth.adapters",
    "sansio_auth.drivers",
    "sansio_auth.testing",
    "sansio_auth.testing.strategies",
    "sansio_auth.testing.pytest_plugin",
    "io_bindings.testing.adapter_suite",
    "io_bindings",
    "io_bindings.anyio",
    "io_bindings.asyncio",
    "io_bindings.trio",
    "io_bindings.sync",
    "io_bindings.self_service",
    "io_bindings.http",
    "io_bindings.starlette",
    "io_bindings.aiohttp",
    "io_bindings.django",
    "io_bindings.django.orm",
    "io_bindings.django.users",
    "io_bindings.wsgi",
    "io_bindings.db.memory",
    "io_bindings.db.sqlite",
    "io_bindings.db.postgres",
    "io_bindings.db.redis",
    "io_bindings.db.sqlalchemy",
    "io_bindings.email",
    "io_bindings.record",
    "io_bindings.replay",
    "io_bindings.demo_op",
}
"""The modules the API reference must cover: the engine's façade and the submodules it
exports, the test kit, the runtime, each framework adapter, each database store, the
e-mail senders."""


def documented_modules() -> list[str]:
    """The modules the reference pages render (their ``::: module`` lines)."""
    return [
        m for page in sorted(REFERENCE.glob("*.md")) for m in DIRECTIVE.findall(page.read_text())
    ]


def public_names() -> Iterator[tuple[str, str, griffe.Object | griffe.Alias]]:
    """Each public name of each documented module, as mkdocstrings sees it (``__all__``
    when the module has one), with what it names."""
    loader = griffe.GriffeLoader(search_paths=[str(ROOT)])
    for package in ("sansio_auth", "io_bindings"):
        loader.load(package)
    loader.resolve_aliases(implicit=False, external=None)
    for module in documented_modules():
        for name, member in loader.modules_collection[module].members.items():
            if not member.is_public:
                continue
            if not member.is_alias and member.is_module:
                continue  # a submodule: public when a page of its own renders it
            yield module, name, member.final_target if member.is_alias else member


def test_the_reference_covers_every_public_module() -> None:
    documented = documented_modules()
    assert set(documented) >= REQUIRED, sorted(REQUIRED - set(documented))
    assert len(documented) == len(set(documented)), "a module is rendered twice"


def test_every_public_name_has_a_docstring() -> None:
    bare = [
        f"{module}.{name}"
        for module, name, target in public_names()
        if not (target.docstring and target.docstring.value.strip())
    ]
    assert not bare, f"public names without a docstring: {bare}"


def test_every_page_is_in_the_navigation() -> None:
    from mkdocs.config import load_config

    nav = load_config(str(ROOT / "mkdocs.yml")).nav

    def pages(entry: object) -> Iterator[str]:
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, dict):
            for value in entry.values():
                yield from pages(value)
        elif isinstance(entry, list):
            for item in entry:
                yield from pages(item)

    listed = set(pages(nav))
    on_disk = {str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md")}
    assert on_disk - listed == set(), "pages missing from mkdocs.yml's nav"
    assert listed - on_disk == set(), "nav entries with no page"


# -- the built site ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built as ``make docs`` builds it (strict: any warning fails)."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def inventory(site: Path) -> set[str]:
    """The names in the site's ``objects.inv`` (Sphinx's inventory, version 2)."""
    data = (site / "objects.inv").read_bytes()
    header_end = 0
    for _ in range(4):  # four header lines, then the zlib-compressed entries
        header_end = data.index(b"\n", header_end) + 1
    lines = zlib.decompress(data[header_end:]).decode().splitlines()
    return {line.split(" ", 1)[0] for line in lines if line}


@pytest.mark.e2e
def test_every_public_name_is_in_the_reference(site: Path) -> None:
    names = inventory(site)
    missing = [f"{m}.{n}" for m, n, _ in public_names() if f"{m}.{n}" not in names]
    assert not missing, f"public names missing from the API reference: {missing}"
    assert "sansio_auth.AuthConfig.providers" in names  # members too


@pytest.mark.e2e
def test_every_diagram_reaches_its_page_as_mermaid(site: Path) -> None:
    for page in DOCS.rglob("*.md"):
        fences = len(re.findall(r"^```mermaid$", page.read_text(), re.M))
        if not fences:
            continue
        name = page.relative_to(DOCS).with_suffix("")
        html_path = site / ("index.html" if name == Path("index") else name / "index.html")
        html = html_path.read_text()
        assert html.count('<pre class="mermaid"><code>') == fences, page


@pytest.mark.e2e
def test_the_site_has_search_and_no_test_words(site: Path) -> None:
    assert (site / "search" / "search_index.json").is_file()
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert "not-run:" not in text, page
        assert "given=" not in text, page


# -- the diagrams -----------------------------------------------------------------------------


def diagrams() -> list[tuple[str, str]]:
    """Every Mermaid diagram of docs/: ``(page, text)``."""
    return [
        (str(page.relative_to(DOCS)), text)
        for page in sorted(DOCS.rglob("*.md"))
        for text in MERMAID.findall(page.read_text())
    ]


def engine_calls() -> dict[str, set[str]]:
    """What the engine's flows can ask for: the adapter methods it calls, the callbacks it
    invokes (by the name it gives them), the event handlers it has."""
    source = "\n".join(p.read_text() for p in (ROOT / "sansio_auth").rglob("*.py"))
    return {
        "adapter": set(re.findall(r'call_adapter\(\s*[\w.]+,\s*"(\w+)"', source)),
        "callbacks": set(re.findall(r'invoke\(\s*"(\w+)"', source)),
        "events": {field.name for field in dataclasses.fields(Events)},
    }


def test_the_diagrams_name_only_what_the_engine_does() -> None:
    calls = engine_calls()
    assert {"get_user_by_account", "create_session"} <= calls["adapter"]
    assert {"jwt", "session", "sign_in", "authorize"} <= calls["callbacks"]
    assert len(diagrams()) >= 8
    wrong = [
        f"{page}: {kind}.{name}"
        for page, text in diagrams()
        for kind, name in re.findall(r"\b(adapter|callbacks|events)\.(\w+)", text)
        if name not in calls[kind]
    ]
    assert not wrong, f"the diagrams name what the engine never does: {wrong}"


PARSE = r"""
import { JSDOM } from "jsdom";
const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const core = `${process.env.MERMAID}/node_modules/mermaid/dist/mermaid.core.mjs`;
const { default: mermaid } = await import(core);
mermaid.initialize({ startOnLoad: false });
let input = "";
for await (const chunk of process.stdin) input += chunk;
const errors = [];
for (const text of JSON.parse(input)) {
  try {
    await mermaid.parse(text);
    errors.push(null);
  } catch (e) {
    errors.push(String(e.message || e));
  }
}
console.log(JSON.stringify(errors));
"""


@pytest.mark.e2e
def test_every_diagram_parses_with_mermaid(tmp_path: Path) -> None:
    prefix = require_npm("mermaid", MERMAID_PACKAGES)
    script = tmp_path / "parse.mjs"
    script.write_text(
        PARSE.replace('from "jsdom"', f'from "{prefix}/node_modules/jsdom/lib/api.js"')
    )
    found = diagrams()
    broken = "sequenceDiagram\n    A->>B: a semicolon; ends the line\n"  # the check has teeth
    texts = [text for _, text in found] + [broken]
    done = subprocess.run(
        ["node", str(script)], input=json.dumps(texts), capture_output=True, text=True,
        timeout=120, check=False, env={"MERMAID": str(prefix), "PATH": os.environ["PATH"]},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    errors = json.loads(done.stdout.strip().splitlines()[-1])
    assert errors[-1] is not None
    wrong = [f"{page}: {error}" for (page, _), error in zip(found, errors, strict=False) if error]
    assert not wrong, "\n".join(wrong)


def test_docstrings_read_as_markdown() -> None:
    from tools.griffe_docstrings import markdown

    text = "Run it::\n\n    python x.py\n\n>>> a = 1\n>>> b()\n2\n\nThen :class:`~a.B` and ``c``."
    once = markdown(text)
    assert once == (
        "Run it:\n\n```text\npython x.py\n```\n\n```pycon\n>>> a = 1\n>>> b()\n2\n```\n\n"
        "Then `B` and `c`."
    )
    assert markdown(once) == once  # a second pass changes nothing
