"""The docs stay true: the generated route table is current and the examples run."""

import re
from pathlib import Path

from sansio_auth._routes import routes_markdown

DOCS = Path(__file__).parents[2] / "docs"


def test_route_table_is_generated_from_the_routes():
    assert (DOCS / "routes.md").read_text() == routes_markdown(), "run `make docs`"


def test_engine_example_runs(capsys):
    code = re.search(r"```python\n(.*?)```", (DOCS / "engine.md").read_text(), re.S)
    assert code is not None
    exec(compile(code.group(1), "docs/engine.md", "exec"), {})
    assert capsys.readouterr().out.strip().startswith("200")
