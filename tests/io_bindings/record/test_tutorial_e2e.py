"""The record-and-replay tutorial of docs/record-replay.md, run as written: the demo provider
and ``python -m io_bindings.record`` as processes, the doc's ``myapp/auth.py``, a sign-in
through the demo provider's consent page, Ctrl-C, then ``python -m io_bindings.replay``:
identical, and after the documented change, the documented divergence."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from live_server import ROOT, free_port, serve, submit_sign_in_form

pytestmark = pytest.mark.e2e
DOC = (ROOT / "docs" / "record-replay.md").read_text()
DOC_ISSUER = "http://127.0.0.1:9000"


def doc_block(language: str, containing: str) -> str:
    """The doc's fenced ``language`` block that contains ``containing``."""
    for info, code in re.findall(r"^```(\w+)[^\n]*\n(.*?)^```$", DOC, re.S | re.M):
        if info == language and containing in code:
            return str(code)
    raise AssertionError(f"no {language} block with {containing!r} in record-replay.md")


def sign_in(app: httpx.Client) -> None:
    """The tutorial's clicks: the sign-in page, its demo-provider button, Allow, the session."""
    consent = submit_sign_in_form(app, app.get("/auth/signin").text, "/signin/demo-op")
    assert "Demo provider" in consent.text  # followed to the provider's consent page
    authorize = str(consent.url)
    form = {**dict(parse_qsl(urlsplit(authorize).query)), "decision": "allow",
            "name": "Ann", "email": "ann@example.com"}  # fmt: skip
    answer = app.post(authorize.split("?")[0], data=form)
    callback = app.get(answer.headers["location"])
    assert callback.status_code == 302, callback.text
    assert app.get("/auth/session").json()["user"]["email"] == "ann@example.com"


def replay(project: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "io_bindings.replay", "exchanges.jsonl",
               "--config", "myapp.auth:config"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip


def test_the_tutorial(tmp_path: Path) -> None:
    op_port, app_port = free_port(), free_port()
    op_url = f"http://127.0.0.1:{op_port}"
    (tmp_path / "myapp").mkdir()
    (tmp_path / "myapp" / "__init__.py").write_text("")
    auth_py = doc_block("python", "# myapp/auth.py")
    assert DOC_ISSUER in auth_py
    (tmp_path / "myapp" / "auth.py").write_text(auth_py.replace(DOC_ISSUER, op_url))
    demo_op = [sys.executable, "-m", "io_bindings.demo_op", "--port", str(op_port)]
    assert "python -m io_bindings.demo_op --port 9000" in doc_block("sh", "demo_op")
    record_line = "python -m io_bindings.record --config myapp.auth:config --out exchanges.jsonl"
    assert record_line in doc_block("sh", "io_bindings.record --config")
    record = [*record_line.replace("python", sys.executable, 1).split(), "--port", str(app_port),
              "--out", str(tmp_path / "exchanges.jsonl")]  # fmt: skip
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    with serve(demo_op, op_port) as _, serve(record, app_port, env=env) as recording:
        origin = f"http://127.0.0.1:{app_port}"
        banner = doc_block("text", "Recording every exchange").strip()
        assert banner.replace("8000", str(app_port)).replace(
            "exchanges.jsonl", str(tmp_path / "exchanges.jsonl")
        ) in recording.log  # fmt: skip
        with httpx.Client(base_url=origin, timeout=15) as app:
            sign_in(app)
        recording.process.send_signal(signal.SIGINT)  # Ctrl-C, as the tutorial says
        assert recording.process.wait(timeout=15) == 0
        log = recording.log
    assert f"Recorded 4 exchanges to {tmp_path / 'exchanges.jsonl'}." in log
    identical = replay(tmp_path)  # the demo provider has stopped: replay is offline
    assert (identical.returncode, identical.stdout) == (
        0,
        doc_block("text", "replays identically").strip() + "\n",
    )
    changed = auth_py.replace(DOC_ISSUER, op_url).replace(
        f'demo_provider("{op_url}")',
        f'demo_provider("{op_url}") | {{"authorization_params": {{"prompt": "login"}}}}',
    )
    (tmp_path / "myapp" / "auth.py").write_text(changed)
    diverged = replay(tmp_path)
    assert diverged.returncode == 1
    documented = doc_block("text", "the response Location differs").replace(
        DOC_ISSUER, op_url
    ).splitlines()  # fmt: skip
    printed = diverged.stdout.splitlines()
    assert printed[:3] == documented[:3]
    for shown, line in zip(documented[3:], printed[3:], strict=True):
        assert line.startswith(shown.removesuffix("..."))
