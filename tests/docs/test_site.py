"""The documentation site builds strictly, shows every page and documents every public name.

``mkdocs build --strict`` (what ``make docs`` runs) fails on a broken link, a missing page
or an unresolved cross-reference; on top of that, these tests fail when a page of docs/ is
left out of the navigation, when a public name of a documented module has no docstring or
is missing from the API reference, when a module the reference must cover is not there,
when a Mermaid diagram does not parse (Mermaid itself, under node), names an adapter
method, a callback or an event the engine never calls, does not reach the page as one, or
is not drawn readably in Chromium from the site alone (no CDN); when an error type only
this library has lacks its entry on the errors page its log lines link to; and when the
build needs more than ``make docs`` installs (the ``docs`` extra).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import logging
import os
import pkgutil
import re
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import griffe
import pytest
from extras import IMPORTED_DISTRIBUTIONS, PROJECT, normalized, requirement_closure
from live_server import LiveServer, free_port, serve
from npm_cache import require_npm
from selenium import webdriver

import sansio_auth
from sansio_auth import Events
from sansio_auth.errors import AUTHJS_ERROR_TYPES, DOCS_URL, AuthError, reference_url
from tests.browser.conftest import browser, wait
from tools.site_hooks import MERMAID_SCRIPT, MERMAID_VERSION

__all__ = ["browser"]

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
REFERENCE = DOCS / "reference"
DIRECTIVE = re.compile(r"^::: (\S+)$", re.M)
MERMAID = re.compile(r"^```mermaid\n(.*?)^```$", re.S | re.M)
MERMAID_PACKAGES = {"mermaid": MERMAID_VERSION, "jsdom": "27.0.0"}

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


def test_a_link_to_a_missing_heading_fails_the_build() -> None:
    """MkDocs checks anchors only when told to; strict makes its warning a failure."""
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    assert config.strict
    assert config.validation.links.anchors == logging.WARNING


# -- the built site ---------------------------------------------------------------------------


BUILD = (
    """
import sys
from mkdocs.__main__ import cli
cli.main(["build", "--strict", "--site-dir", sys.argv[1]], standalone_mode=False)
"""
    + IMPORTED_DISTRIBUTIONS
)


@dataclasses.dataclass(frozen=True)
class Site:
    path: Path
    imported: set[str]
    """The distributions the build imported."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The site, built as ``make docs`` builds it (strict: any warning fails), and what the
    build imported. Node and npm are on the path: Mermaid's script is installed from npm."""
    out = tmp_path_factory.mktemp("site")
    path = os.pathsep.join((str(Path(sys.executable).parent), os.environ["PATH"]))
    kept = {k: os.environ[k] for k in ("HOME", "XDG_CACHE_HOME") if k in os.environ}
    done = subprocess.run(
        [sys.executable, "-c", BUILD, str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": path, **kept},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return Site(out, {normalized(d) for d in done.stdout.strip().splitlines()[-1].split()})


@pytest.fixture(scope="module")
def site(built: Site) -> Path:
    return built.path


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
def test_make_docs_installs_the_docs_extra_and_the_build_needs_no_more(built: Site) -> None:
    """``make docs`` installs ``sansio-auth[docs]``, not the test toolchain; everything the
    build imported is in that extra (or the library's own dependencies)."""
    makefile = (ROOT / "Makefile").read_text()
    [target] = re.findall(r"^docs: (.*)$", makefile, re.M)
    assert "$(VENV)/.installed-docs" in target.split()
    assert "install" not in target.split()
    assert "pip install --quiet -e '.[docs]'" in makefile
    closure = requirement_closure([*PROJECT["dependencies"], "sansio-auth[docs]"])
    assert not closure & {"pytest", "selenium", "mypy", "psycopg", "django", "hypothesis"}
    # imported when installed, needed by none: cryptography's optional bcrypt (the test extra
    # has it), pydantic, which mkdocstrings-python checks its options with when it is there
    optional = {"bcrypt", "pydantic", "pydantic-core", "annotated-types", "typing-inspection"}
    imported = built.imported - {"sansio-auth"} - optional
    assert {"mkdocs", "mkdocs-material", "mkdocstrings-python"} <= imported
    assert imported <= closure, imported - closure


@pytest.mark.e2e
def test_the_site_has_search_and_no_test_words(site: Path) -> None:
    assert (site / "search" / "search_index.json").is_file()
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert "not-run:" not in text, page
        assert "given=" not in text, page


@pytest.mark.e2e
def test_the_errors_page_has_an_entry_for_each_error_only_we_have(site: Path) -> None:
    """The links of log lines land on the site: its address is ``DOCS_URL`` and the errors
    page has the anchor of each error type Auth.js's reference does not have."""
    page_url = reference_url("DeadlineExceeded").partition("#")[0]
    assert f"<loc>{page_url}</loc>" in (site / "sitemap.xml").read_text()
    html = (site / page_url.removeprefix(DOCS_URL) / "index.html").read_text()
    for error_type in sorted(error_types() - AUTHJS_ERROR_TYPES):
        assert f'id="{reference_url(error_type).partition("#")[2]}"' in html, error_type


# -- the errors page --------------------------------------------------------------------------


def error_types() -> set[str]:
    """The type of every error the library can raise and log: each :class:`AuthError`
    class of every module of ``sansio_auth``."""
    for module in pkgutil.walk_packages(sansio_auth.__path__, "sansio_auth."):
        importlib.import_module(module.name)
    found: set[str] = set()
    todo: list[type[AuthError]] = [AuthError]
    while todo:
        error = todo.pop()
        found.add(error.type)
        todo += error.__subclasses__()
    return found


def test_every_error_only_we_have_is_explained_on_the_errors_page() -> None:
    """Auth.js's errors link to Auth.js's reference; every other type a log line can name
    links to its entry on docs/reference/errors.md, which says what it means and what to do."""
    ours = error_types() - AUTHJS_ERROR_TYPES
    assert {"DeadlineExceeded", "FormError", "Configuration", "TwoFactorExpired"} <= ours
    page = (REFERENCE / "errors.md").read_text()
    entries = {
        name: (anchor, text)
        for name, anchor, text in re.findall(
            r"^### (\w+) \{#([\w-]+)\}\n(.*?)(?=^#|^:::)", page, re.M | re.S
        )
    }
    for error_type in sorted(ours):
        assert error_type in entries, f"{error_type} has no entry on docs/reference/errors.md"
        anchor, text = entries[error_type]
        assert reference_url(error_type) == f"{DOCS_URL}reference/errors/#{anchor}"
        assert "**What it means.**" in text, error_type
        assert "**What to do.**" in text, error_type
    assert not set(entries) & AUTHJS_ERROR_TYPES  # Auth.js's reference explains those


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


OPEN_SHADOW_ROOTS = """
const attach = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (init) {
  return attach.call(this, {...init, mode: "open"});
};
"""
"""The theme draws each diagram into a closed shadow root: opened, to measure the drawing."""

DRAWN = """
return [...document.querySelectorAll("div.mermaid")].map((host) => {
  const svg = host.shadowRoot.querySelector("svg");
  return {width: svg.getBoundingClientRect().width, natural: svg.viewBox.baseVal.width};
});
"""

READABLE_SCALE = 0.75
"""The least a diagram may be shrunk to fit the page: its 16 px text stays 12 px or more."""


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[LiveServer]:
    """The built site on a local HTTP server."""
    port = free_port()
    command = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "--directory"]
    with serve([*command, str(site), str(port)], port) as live:
        yield live


def drawn(count: int) -> Callable[[webdriver.Chrome], bool]:
    """Whether the page has drawn its ``count`` diagrams (the theme replaces each block)."""
    script = "return document.querySelectorAll('div.mermaid').length"
    return lambda browser: browser.execute_script(script) == count


@pytest.mark.e2e
def test_every_diagram_is_drawn_readably_from_the_site_alone(
    browser: webdriver.Chrome, served: LiveServer, site: Path
) -> None:
    """In Chromium, with every https request refused (no CDN), each page's diagrams are drawn
    by the Mermaid the site serves, each at no less than :data:`READABLE_SCALE`."""
    browser.set_window_size(1280, 1000)
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["https://*"]})
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": OPEN_SHADOW_ROOTS})
    assert (site / MERMAID_SCRIPT).is_file()
    pages = sorted({page for page, _ in diagrams()})
    assert "architecture.md" in pages
    for page in pages:
        browser.get(f"{served.url}/{page.removesuffix('.md')}/")
        count = len(re.findall(r"^```mermaid$", (DOCS / page).read_text(), re.M))
        wait(browser, 20).until(drawn(count), f"{page}: the diagrams were not drawn")
        for size in browser.execute_script(DRAWN):
            scale = min(1.0, size["width"] / size["natural"])
            assert scale >= READABLE_SCALE, f"{page}: a diagram shrunk to {scale:.2f}"
