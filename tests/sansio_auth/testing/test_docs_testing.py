"""docs/testing.md: the example runs and its tests pass (and catch a broken callback)."""

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

DOC = Path(__file__).parents[3] / "docs" / "testing.md"


def example(**replace: str) -> dict[str, Any]:
    text = DOC.read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None
    source = code.group(1)
    assert len(source.strip().splitlines()) <= 40
    for old, new in replace.items():
        assert old in source
        source = source.replace(old, new)
    namespace: dict[str, Any] = {"__name__": "docs_testing"}
    # at its own lines of the document, so that inspect.getsource (hypothesis) finds it there
    source = "\n" * text.count("\n", 0, code.start(1)) + source
    exec(compile(source, str(DOC), "exec"), namespace)
    return namespace


def test_the_example_passes():
    namespace = example()
    namespace["test_only_verified_users_get_in_and_admins_are_from_corp"]()
    case = namespace["TestMyAuth"]
    case.settings = settings(case.settings, max_examples=10)
    case("runTest").runTest()


def test_the_example_catches_a_sign_in_callback_that_lets_everyone_in():
    namespace = example(**{'account["provider"] != "op" or': "True or"})
    with pytest.raises(AssertionError):
        namespace["test_only_verified_users_get_in_and_admins_are_from_corp"]()
