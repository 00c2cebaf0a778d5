"""No import cycles: each module of the engine and of the bindings can be imported after
everything it needs, and reads as one direction of dependency.

The graph is read from the source, type-only imports (``if TYPE_CHECKING:``) included: a
circle drawn by type hints is still two modules that each need the other to be read. An
edge goes to the module an import names and, as Python does, to that module's parent
packages the importer is not already inside; so importing in dependency order never
reaches a partially initialised module. The engine's subpackages and top-level modules,
taken as units, form no cycle either (``providers`` does not import ``oauth``: the reverse
holds).
"""

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PACKAGES = ("sansio_auth", "io_bindings")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {
    module_name(path): path
    for package in PACKAGES
    for path in sorted((ROOT / package).rglob("*.py"))
}


def parents(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def imported_modules(module: str) -> set[str]:
    path = MODULES[module]
    here = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.rsplit(".", node.level - 1)[0]
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                name = f"{base}.{alias.name}"
                found.add(name if name in MODULES else base)
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
    assert len(MODULES) > 100
    assert "sansio_auth.fetch" in GRAPH["sansio_auth.oauth.discovery"]
    assert "sansio_auth.providers" in GRAPH["sansio_auth.oauth.discovery"]  # via providers.oauth
    assert "sansio_auth.providers.oauth" in GRAPH["sansio_auth.providers"]
    assert "io_bindings.anyio" in GRAPH["io_bindings.starlette._runtime"]
    assert "io_bindings.db._base" in GRAPH["io_bindings.db._postgres_asyncio"]  # type-only


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_import_cycle(package):
    graph = {m: t for m, t in GRAPH.items() if m.split(".")[0] == package}
    assert cycle_of(graph) == []


def test_no_cycle_between_the_engine_and_the_bindings():
    assert not any(
        t.startswith("io_bindings")
        for m, ts in GRAPH.items()
        if m.startswith("sansio_auth")
        for t in ts
    )
    assert cycle_of(GRAPH) == []


def test_no_cycle_between_subpackages():
    units: dict[str, set[str]] = {}
    for module, targets in GRAPH.items():
        if module.startswith("sansio_auth."):
            edges = {unit(t) for t in targets if t.startswith("sansio_auth.")} - {unit(module)}
            units.setdefault(unit(module), set()).update(edges)
    assert cycle_of(units) == []


@pytest.mark.parametrize(
    "graph",
    [{"a": {"b"}, "b": {"a"}}, {"a": {"b"}, "b": {"c"}, "c": {"a"}}],
)
def test_a_cycle_is_found(graph):
    assert cycle_of(graph)
