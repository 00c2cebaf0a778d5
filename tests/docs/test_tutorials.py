"""Every tutorial of docs/tutorials/ runs as written, end to end.

For each one: the files its Python blocks name on their first line (``# app.py``) are
written into an empty directory, the demo provider runs as its ``python -m
io_bindings.demo_op --port 9000`` block says, and each block that starts the app (the one
that exports ``AUTH_SECRET``) runs under bash in that directory, in a process group of its
own (whatever it starts is stopped with it); the ports become free ones. Then a client does
what the tutorial tells a person to do: it opens the protected page, is sent to the
sign-in page, presses the demo provider's button, allows on the provider's consent page,
and lands on the protected page signed in; then it signs out and is sent away again.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from live_server import free_port, serve, submit_sign_in_form

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", re.S | re.M)
DOC_ISSUER, DOC_APP_PORT = "http://127.0.0.1:9000", "8000"
DEMO_OP_LINE = "python -m io_bindings.demo_op --port 9000"


def blocks(page: Path, language: str) -> list[str]:
    return [code for lang, _, code in FENCE.findall(page.read_text()) if lang == language]


def project_files(page: Path) -> dict[str, str]:
    """The files the tutorial has you write: ``path → text``, by the first line."""
    files = {}
    for code in blocks(page, "python"):
        first = code.splitlines()[0]
        if match := re.fullmatch(r"# ([\w./-]+\.py)", first):
            files[match[1]] = code
    assert files, f"{page.name} names no file"
    return files


def run_blocks(page: Path) -> list[str]:
    """The blocks that start the app: they export ``AUTH_SECRET``."""
    found = [code for code in blocks(page, "sh") if "export AUTH_SECRET=" in code]
    assert found, f"{page.name} has no block that starts the app"
    return found


def cases() -> list[object]:
    return [
        pytest.param(page, number, id=f"{page.stem}-{number}")
        for page in sorted(TUTORIALS.glob("*.md"))
        for number in range(len(run_blocks(page)))
    ]


def sign_in_and_out(client: httpx.Client, protected: str) -> None:
    """What the tutorial tells a person to do, from the protected page and back."""
    page = client.get(protected, follow_redirects=True)
    assert "/signin" in page.url.path, f"{protected} did not send us to sign in: {page.url}"
    assert "the demo provider" in page.text
    consent = submit_sign_in_form(client, page.text, "/signin/demo-op")
    assert "Demo provider" in consent.text, consent.text  # the provider's consent page
    authorize = str(consent.url)
    form = {**dict(parse_qsl(urlsplit(authorize).query)), "decision": "allow",
            "name": "Ann <Admin>", "email": "ann@example.com"}  # fmt: skip
    answer = client.post(authorize.split("?")[0], data=form)
    assert answer.status_code in (302, 303), answer.text
    landed = client.get(answer.headers["location"], follow_redirects=True)
    assert landed.status_code == 200, landed.text
    assert landed.url.path == protected, landed.url  # back where we asked to go
    assert "Signed in as Ann &lt;Admin&gt; (ann@example.com)" in landed.text, landed.text
    sign_out = re.search(r'href="([^"]*/signout)"', landed.text)
    assert sign_out is not None, landed.text
    confirm = client.get(sign_out[1], follow_redirects=True)
    submit_sign_in_form(client, confirm.text, "/signout")
    again = client.get(protected, follow_redirects=True)
    assert "/signin" in again.url.path
    assert "Signed in as" not in again.text


@pytest.mark.parametrize(("page", "number"), cases())
def test_the_tutorial_as_written(page: Path, number: int, tmp_path: Path) -> None:
    op_port, app_port = free_port(), free_port()
    op_issuer = f"http://127.0.0.1:{op_port}"
    files = project_files(page)
    script = run_blocks(page)[number]
    assert DOC_APP_PORT in script + "".join(files.values()), "where does the app listen?"
    for name, text in files.items():
        assert DOC_ISSUER in text or "demo_provider" not in text
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.replace(DOC_ISSUER, op_issuer).replace(DOC_APP_PORT, str(app_port)))
    assert any(DEMO_OP_LINE in code for code in blocks(page, "sh")), page.name
    demo_op = [sys.executable, "-m", "io_bindings.demo_op", "--port", str(op_port)]
    script = script.replace(DOC_APP_PORT, str(app_port))
    origin = f"http://127.0.0.1:{app_port}"
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    app = ["bash", "-e", "-c", script]  # as the reader runs it, in the project's directory
    with (
        serve(demo_op, op_port),
        serve(app, app_port, env={"PATH": path}, cwd=tmp_path, process_group=True),
        httpx.Client(base_url=origin, timeout=30) as client,
    ):
        sign_in_and_out(client, protected="/dashboard")
