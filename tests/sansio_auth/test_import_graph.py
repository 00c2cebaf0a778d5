"""The engine's imports form no cycle: each module can be imported after everything it needs.

The graph is read from the source (runtime imports only, not ``if TYPE_CHECKING:``). An
edge goes to the module an import names and, as Python does, to that module's parent
packages the importer is not already inside; so importing in dependency order never
reaches a partially initialised module. The subpackages and top-level modules, taken
as units, form no cycle either (``providers`` does not import ``oauth``: the reverse holds).
"""

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PACKAGE = "sansio_auth"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted((ROOT / PACKAGE).rglob("*.py"))}


def parents(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of ``tree`` but those under ``if TYPE_CHECKING:``."""
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in typing_only
    ]


def imported_modules(module: str) -> set[str]:
    path = MODULES[module]
    here = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in runtime_imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = here.rsplit(".", node.level - 1)[0]
            base = f"{anchor}.{base}" if base else anchor
        for alias in node.names:
            found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    targets = {name for name in found if name in MODULES}
    inside = parents(module)
    return (targets | {p for t in targets for p in parents(t)}) - inside - {module}


def unit(module: str) -> str:
    """``sansio_auth.oauth.discovery`` -> ``oauth``; ``sansio_auth.fetch`` -> ``fetch``."""
    return module.split(".")[1] if "." in module else module


GRAPH = {module: imported_modules(module) for module in MODULES}


def cycle_of(graph: dict[str, set[str]]) -> list[str]:
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as err:
        return list(err.args[1])
    return []


def test_the_graph_is_read():
    assert len(MODULES) > 40
    assert "sansio_auth.fetch" in GRAPH["sansio_auth.oauth.discovery"]
    assert "sansio_auth.providers" in GRAPH["sansio_auth.oauth.discovery"]  # via providers.oauth
    assert "sansio_auth.providers.oauth" in GRAPH["sansio_auth.providers"]


def test_no_module_import_cycle():
    assert cycle_of(GRAPH) == []


def test_no_cycle_between_subpackages():
    units: dict[str, set[str]] = {}
    for module, targets in GRAPH.items():
        if module != PACKAGE:
            edges = {unit(t) for t in targets if t != PACKAGE} - {unit(module)}
            units.setdefault(unit(module), set()).update(edges)
    assert cycle_of(units) == []


@pytest.mark.parametrize(
    "graph",
    [{"a": {"b"}, "b": {"a"}}, {"a": {"b"}, "b": {"c"}, "c": {"a"}}],
)
def test_a_cycle_is_found(graph):
    assert cycle_of(graph)
