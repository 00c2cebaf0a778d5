"""The release users install: the sdist and wheel build, pass ``twine check``, and the wheel
works in a clean virtual environment (every public module imports, the quick start runs)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import sansio_auth

ROOT = Path(__file__).parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

# What the wheel's base install must run without: a module that needs one of these may
# fail to import only for that reason (its extra is not installed).
OPTIONAL = {
    name
    for extra, requirements in PYPROJECT["project"]["optional-dependencies"].items()
    if extra != "testing"
    for requirement in requirements
    for name in [requirement.split("[")[0].split(">")[0].split(";")[0].strip().replace("-", "_")]
}

CHECK = textwrap.dedent(
    """
    import asyncio, importlib, json, pkgutil, sys
    optional = set(sys.argv[1].split(","))
    imported, skipped = [], []
    for top in ("sansio_auth", "io_bindings"):
        package = importlib.import_module(top)
        for info in pkgutil.walk_packages(package.__path__, top + "."):
            if any(part.startswith("_") for part in info.name.split(".")):
                continue
            try:
                importlib.import_module(info.name)
            except ImportError as err:
                missing = (err.name or "").split(".")[0]
                if missing not in optional:
                    raise
                skipped.append(info.name)
            else:
                imported.append(info.name)

    import sansio_auth
    from sansio_auth import AuthConfig
    from sansio_auth.providers import Credentials
    from io_bindings.anyio import AuthApp

    async def authorize(credentials, request):
        if credentials.get("password") == "let me in":
            return {"id": "1", "name": "Ann", "email": "ann@example.com"}
        return None

    app = AuthApp(AuthConfig(
        secret="a-test-secret-of-at-least-32-characters",
        trust_host=True,
        providers=[Credentials(authorize=authorize,
                               credentials={"password": {"type": "password"}})],
    ))

    async def call(method, path, cookie="", body=b""):
        headers = [(b"host", b"localhost"), (b"cookie", cookie.encode())]
        if body:
            headers.append((b"content-type", b"application/x-www-form-urlencoded"))
        scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
                 "query_string": b"", "headers": headers, "scheme": "http",
                 "server": ("localhost", 80), "http_version": "1.1", "root_path": ""}
        sent, chunks = [], [{"type": "http.request", "body": body, "more_body": False}]
        async def receive():
            return chunks.pop(0)
        async def send(message):
            sent.append(message)
        await app(scope, receive, send)
        start = sent[0]
        cookies = [v.decode().split(";")[0] for k, v in start["headers"] if k == b"set-cookie"]
        return start["status"], cookies, b"".join(m.get("body", b"") for m in sent[1:])

    async def quick_start():
        status, cookies, body = await call("GET", "/auth/csrf")
        token = json.loads(body)["csrfToken"]
        form = f"csrfToken={token}&password=let+me+in".encode()
        status, signed_in, _ = await call(
            "POST", "/auth/callback/credentials", "; ".join(cookies), form)
        assert status == 302, status
        status, _, body = await call("GET", "/auth/session", "; ".join(signed_in))
        return json.loads(body)["user"]

    user = asyncio.run(quick_start())
    print(json.dumps({"version": sansio_auth.__version__, "imported": imported,
                      "skipped": skipped, "user": user}))
    """
)


def run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"{args}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.e2e
def test_the_wheel_installs_imports_and_runs_the_quick_start(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    run(sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", dist, ROOT, cwd=tmp_path)
    [wheel] = dist.glob("*.whl")
    [sdist] = dist.glob("*.tar.gz")
    run(sys.executable, "-m", "twine", "check", "--strict", wheel, sdist, cwd=tmp_path)

    venv = tmp_path / "clean"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", f"{wheel}[testing]", cwd=tmp_path)
    out = run(python, "-c", CHECK, ",".join(sorted(OPTIONAL)), cwd=tmp_path)

    report = json.loads(out.splitlines()[-1])
    assert report["version"] == sansio_auth.__version__
    assert wheel.name.startswith(f"sansio_auth-{sansio_auth.__version__}-")
    assert report["user"] == {"name": "Ann", "email": "ann@example.com"}
    assert "sansio_auth.testing.strategies" in report["imported"]  # the testing extra
    assert "io_bindings.anyio" in report["imported"]
    assert all(name.startswith("io_bindings.") for name in report["skipped"]), report
