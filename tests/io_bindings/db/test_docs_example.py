"""The example in docs/database.md runs and prints what its comments say."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).parents[3] / "docs" / "database.md"


def test_the_database_doc_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None
    exec(compile(code.group(1), str(DOC), "exec"), {"__name__": "docs"})
    assert capsys.readouterr().out.split("\n") == ["ada@example.com", "True", "None", ""]
