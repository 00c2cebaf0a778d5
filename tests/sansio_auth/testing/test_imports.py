"""The kit is importable as documented; hypothesis and pytest stay out of plain imports."""

import ast
import subprocess
import sys
from pathlib import Path

KIT = Path(__file__).parents[3] / "sansio_auth" / "testing"
TEST_TOOLS = {"hypothesis", "pytest"}
MAY_IMPORT_TEST_TOOLS = {
    "strategies.py",
    "state_machine.py",
    "pytest_plugin.py",
}


def test_the_documented_import_works():
    from sansio_auth.testing import AuthStateMachine, Browser, MemoryOP, strategies

    assert callable(strategies.requests)
    assert issubclass(AuthStateMachine.TestCase, object)
    assert Browser.sign_in
    assert MemoryOP.misbehave


def test_importing_the_engine_and_the_kit_imports_no_test_tool():
    code = (
        "import sys, sansio_auth, sansio_auth.testing\n"
        "from sansio_auth.testing import Browser, MemoryOP\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'hypothesis', 'pytest'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=KIT.parents[1]
    )
    assert out.stdout.strip() == "[]"


def test_only_the_hypothesis_and_pytest_modules_import_them():
    for path in sorted(KIT.glob("*.py")):
        tree = ast.parse(path.read_text())
        names = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        names |= {
            node.module or ""
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 0
        }
        tools = {name.split(".")[0] for name in names} & TEST_TOOLS
        assert not tools or path.name in MAY_IMPORT_TEST_TOOLS, f"{path.name} imports {tools}"
