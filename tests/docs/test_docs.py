"""The docs stay true: the generated route table is current and the examples run."""

import re
from pathlib import Path

from sansio_auth._routes import routes_markdown

DOCS = Path(__file__).parents[2] / "docs"


def test_route_table_is_generated_from_the_routes():
    assert (DOCS / "routes.md").read_text() == routes_markdown(), "run `make docs`"


def test_the_by_hand_example_signs_in_with_credentials_and_reads_the_session(capsys):
    code = re.search(r"```python\n(.*?)```", (DOCS / "engine.md").read_text(), re.S)
    assert code is not None
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), "docs/engine.md", "exec"), namespace)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines == [
        "302 http://localhost:8000",
        "{'name': 'Ann', 'email': 'ann@example.com'}",
    ]
    assert "authjs.session-token" in namespace["jar"]  # type: ignore[operator]
