"""The docs stay true: the generated route table is current and every Python example runs.

Every fenced block of README.md and docs/ is checked; the other kinds (``sh``, ``django``,
``text``) in ``test_blocks.py``. The Python examples' convention:

* Every fenced block whose info string starts with ``python`` is run, in the order of its
  file, in a temporary working directory, with no ``AUTH_*``, ``NEXTAUTH_*``, ``ENV`` or
  ``PYTHON_ENV`` variable but those the block asks for (see ``given=``), to the end: an
  exception fails the test.
  Top-level ``await`` is allowed (the block then runs on an asyncio loop).
* Words after ``python`` in the info string (GitHub renders them as plain Python):

  - ``continued``: the block goes on from the previous Python block of the same file and
    runs in its namespace (imports, names and given variables carry over). Without it a
    block starts afresh.
  - ``given=name,NAME,...``: the block uses names it does not define, supplied by the test
    from :data:`GIVEN` (``config``, ``request``, ``your_app``, ...); an UPPER-CASE name is an
    environment variable from :data:`GIVEN_ENV` (``AUTH_SECRET``, ...). Add a new given
    there when an example needs one; never give a name the example could define itself.
  - ``excerpt``: a piece of a file of the user's project (``settings.py``, ``urls.py``, a
    view) that cannot run outside it. It must still compile. Use it only for that.
  - ``pytest``: a test module of the user's project: written to a fresh directory and run
    by pytest in its own process, which must pass at least one test and fail none.

* Output: a line ``print(...)  # text`` documents what it prints. A block's printed lines
  must be exactly its documented texts, in order (``...`` in a text matches anything). A
  block with no documented print may print anything.
* Outcome: beyond running to the end, a block may have a check in :data:`OUTCOMES`, keyed
  ``"<file>#<n>"`` (the file's n-th Python block, from 1), called with the block's namespace:
  it drives the example (an ASGI app through ``httpx.ASGITransport``, an engine through its
  flows) and asserts what the docs promise.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from sansio_auth import AuthConfig, Request
from sansio_auth._routes import routes_markdown
from sansio_auth.providers import Credentials
from tools.catalogue import docs_with_table

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```$", re.S | re.M)
DOCUMENTED_PRINT = re.compile(r"^\s*print\(.*\)\s*#\s?(.*)$")
TEST_SECRET = secrets.token_urlsafe(32)

Namespace = dict[str, Any]


def test_route_table_is_generated_from_the_routes() -> None:
    assert (DOCS / "routes.md").read_text() == routes_markdown(), "run `make docs`"


def test_provider_table_is_generated_from_the_service_rows() -> None:
    text = (DOCS / "providers.md").read_text()
    assert text == docs_with_table(text), "run `make docs`"


# -- what examples may be given ---------------------------------------------------------------


def _authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
    if credentials.get("password") == "pw":
        return {"id": "1", "name": "Ann", "email": "ann@example.com"}
    return None


async def _your_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The user's own ASGI app: answers every request with ``your app``."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"your app"})


def _ec_private_key_pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem.decode()


GIVEN: dict[str, Callable[[], object]] = {
    "providers": lambda: [Credentials(authorize=_authorize)],
    "config": lambda: AuthConfig(
        secret=TEST_SECRET, trust_host=True, providers=GIVEN["providers"]()
    ),
    "request": lambda: Request(method="GET", url="http://localhost:8000/", headers={}),
    "your_app": lambda: _your_app,
    "apple_private_key": lambda: _ec_private_key_pem(),
}
"""Names an example may take as given (``given=``): password sign-in (password ``pw``) as a
provider list and as a configuration, a browser's request without cookies, the user's ASGI app,
the ``.p8`` key Apple gives a developer (an EC P-256 key in PEM)."""

GIVEN_ENV = {
    "AUTH_SECRET": TEST_SECRET,
    "AUTH_TRUST_HOST": "true",
    "AUTH_GITHUB_ID": "docs-client-id",
    "AUTH_GITHUB_SECRET": "docs-client-secret",
}
"""Environment variables an example may take as given (``given=AUTH_SECRET``)."""


# -- the examples -----------------------------------------------------------------------------


class Example:
    """One Python block of a doc."""

    def __init__(self, path: Path, number: int, words: list[str], code: str, line: int) -> None:
        self.path, self.number, self.code, self.line = path, number, code, line
        self.continued = "continued" in words
        self.excerpt = "excerpt" in words
        self.pytest = "pytest" in words
        self.given = [n for w in words if w.startswith("given=") for n in w[6:].split(",") if n]
        unknown = {w for w in words if w not in ("continued", "excerpt", "pytest")} - {
            w for w in words if w.startswith("given=")
        }
        assert not unknown, f"{self.key}: unknown words in the info string: {sorted(unknown)}"

    @property
    def key(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{path}#{self.number}"

    def expected_output(self) -> list[str]:
        lines = self.code.splitlines()
        return [m.group(1) for line in lines if (m := DOCUMENTED_PRINT.match(line))]


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def examples(path: Path) -> list[Example]:
    text = path.read_text()
    return [
        Example(path, n, m.group(1).split(), m.group(2), text.count("\n", 0, m.start()) + 2)
        for n, m in enumerate(FENCE.finditer(text), 1)
    ]


def matches(text: str, pattern: str) -> bool:
    return re.fullmatch(".*".join(map(re.escape, pattern.split("..."))), text) is not None


def run(example: Example, namespace: Namespace) -> None:
    """Run ``example`` in ``namespace``; top-level ``await`` runs on an asyncio loop."""
    source = "\n" * (example.line - 1) + example.code  # tracebacks point at the doc's lines
    # dont_inherit: an example runs as a script of its own would, without this module's
    # `from __future__ import annotations` (SQLAlchemy models read their annotations)
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    code = compile(source, str(example.path), "exec", flags=flags, dont_inherit=True)
    result = eval(code, namespace)  # the docs' own examples
    if inspect.iscoroutine(result):
        asyncio.run(result)


def run_pytest(example: Example, directory: Path) -> None:
    """Run ``example`` as a test module of a project of its own, in another process."""
    directory.mkdir()
    (directory / "test_example.py").write_text("\n" * (example.line - 1) + example.code)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTH_", "NEXTAUTH_"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_example.py"],
        cwd=directory, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{example.key}:\n{done.stdout}{done.stderr}"
    assert re.search(r"\b[1-9][0-9]* passed\b", done.stdout), done.stdout


SERVING = {"docs/demo-provider.md", "docs/testing.md"}
"""Docs whose examples start a server (the demo provider in a thread, or a pytest process):
their runs are end-to-end tests."""


def doc_params() -> list[Any]:
    return [
        pytest.param(path, marks=[pytest.mark.e2e] if key in SERVING else [], id=key)
        for path in doc_files()
        for key in [str(path.relative_to(ROOT))]
    ]


@pytest.mark.parametrize("path", doc_params())
def test_every_python_example_runs_to_the_end(
    path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("AUTH_", "NEXTAUTH_")) or name in ("ENV", "PYTHON_ENV"):
            monkeypatch.delenv(name)
    namespace: Namespace = {}
    for example in examples(path):
        if example.excerpt:
            compile(example.code, example.key, "exec")
            continue
        if example.pytest:
            run_pytest(example, tmp_path / f"example_{example.number}")
            continue
        if not example.continued:  # afresh: a new namespace, no variable given before
            namespace = {"__name__": "__docs__"}
            for name in GIVEN_ENV:
                monkeypatch.delenv(name, raising=False)
        for name in example.given:
            if name.isupper():
                monkeypatch.setenv(name, GIVEN_ENV[name])
            else:
                namespace[name] = GIVEN[name]()
        capsys.readouterr()
        run(example, namespace)
        printed = capsys.readouterr().out.splitlines()
        expected = example.expected_output()
        if expected:
            assert len(printed) == len(expected), f"{example.key} printed {printed}"
            for line, pattern in zip(printed, expected, strict=True):
                assert matches(line, pattern), f"{example.key}: {line!r} is not {pattern!r}"
        if check := OUTCOMES.get(example.key):
            check(namespace)


def test_the_convention_is_strict(tmp_path: Path) -> None:
    """A broken example fails: a wrong output, an undefined name, an unknown marker."""
    doc = tmp_path / "doc.md"
    doc.write_text("```python\nprint(1 + 1)  # 3\n```\n\n```python\nprint(x)\n```\n")
    first, second = examples(doc)
    assert first.expected_output() == ["3"]
    assert not matches("2", "3")
    assert matches("{'name': 'Ann', 'email': 'a@b'}", "{'name': 'Ann', 'email': ...}")
    with pytest.raises(NameError):
        run(second, {})
    doc.write_text("```python contnued\npass\n```\n")
    with pytest.raises(AssertionError, match="unknown words"):
        examples(doc)


# -- outcomes ---------------------------------------------------------------------------------


def on_asgi_app(app: Any, steps: Callable[[httpx.AsyncClient], Awaitable[None]]) -> None:
    """Run ``steps`` with a client of the ASGI ``app`` (through ``httpx.ASGITransport``)."""
    asyncio.run(on_asgi_app_async(app, steps))


async def on_asgi_app_async(
    app: Any, steps: Callable[[httpx.AsyncClient], Awaitable[None]]
) -> None:
    """:func:`on_asgi_app` on the running loop."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        await steps(client)


async def sign_in_with_password(client: httpx.AsyncClient, password: str) -> dict[str, Any]:
    """Sign in through the credentials form; the session ``GET /auth/session`` answers."""
    token = (await client.get("/auth/csrf")).json()["csrfToken"]
    form = {"csrfToken": token, "password": password}
    assert (await client.post("/auth/callback/credentials", data=form)).status_code == 302
    session: dict[str, Any] = (await client.get("/auth/session")).json()
    return session


def readme_quick_start(ns: Namespace) -> None:
    async def steps(client: httpx.AsyncClient) -> None:
        session = await sign_in_with_password(client, "let me in")
        assert session["user"] == {"name": "Ann", "email": "ann@example.com"}

    on_asgi_app(ns["app"], steps)


def readme_github_and_email(ns: Namespace) -> None:
    async def steps(client: httpx.AsyncClient) -> None:
        assert sorted((await client.get("/auth/providers")).json()) == ["email", "github"]

    on_asgi_app(ns["app"], steps)


def bindings_auth_app(ns: Namespace) -> None:
    async def steps(client: httpx.AsyncClient) -> None:
        assert (await client.get("/elsewhere")).text == "your app"
        assert "csrfToken" in (await client.get("/auth/csrf")).json()

    on_asgi_app(ns["app"], steps)


def bindings_runtime(ns: Namespace) -> None:
    assert ns["response"] is None  # "/" is not under base_path
    assert ns["read"].data is None  # no session cookie
    assert ns["read"].set_cookie_headers() == []


def configuration_callbacks(ns: Namespace) -> None:
    from io_bindings.anyio import AuthApp

    async def steps(client: httpx.AsyncClient) -> None:
        session = await sign_in_with_password(client, "pw")
        assert session["user"]["role"] == "member"

    on_asgi_app(AuthApp(ns["config"]), steps)  # AUTH_SECRET is given


def webauthn_setup(ns: Namespace) -> None:
    from io_bindings.db.sqlite import SQLiteAdapter

    async def steps(client: httpx.AsyncClient) -> None:
        page = (await client.get("/auth/signin")).text
        assert 'id="passkey-form"' in page
        assert 'autocomplete="username webauthn"' in page
        assert "Sign up with Passkey" in page
        assert (await client.get("/elsewhere")).text == "your app"
        query = "action=register&email=new@example.com"
        options = await client.get(f"/auth/webauthn-options/passkey?{query}")
        assert options.json()["action"] == "register"
        assert options.json()["options"]["rp"]["id"] == "localhost"
        assert "authjs.challenge" in options.cookies

    adapter: SQLiteAdapter = ns["config"].adapter

    async def opened() -> None:
        async with adapter:
            await on_asgi_app_async(ns["app"], steps)

    asyncio.run(opened())


def demo_provider_mounted(ns: Namespace) -> None:
    async def steps(client: httpx.AsyncClient) -> None:
        discovery = (await client.get("/demo-op/.well-known/openid-configuration")).json()
        assert discovery["issuer"] == "http://localhost:8000/demo-op"
        assert "demo-op" in (await client.get("/auth/providers")).json()
        assert (await client.get("/elsewhere")).text == "your app"

    on_asgi_app(ns["app"], steps)


def starlette_stored_user(ns: Namespace) -> None:
    """The FastAPI page's store: the session's ``user.id``, ``current_user``, "sign out
    everywhere" as written, and the auth routes and the cookie scheme in ``/openapi.json``."""
    from datetime import UTC, datetime, timedelta

    adapter = ns["adapter"]

    async def steps(client: httpx.AsyncClient) -> None:
        new = {"id": "", "email": "ada@example.com", "email_verified": None, "name": "Ada"}
        user = await adapter.create_user(new)
        expires = datetime.now(UTC) + timedelta(days=1)
        for token in ("one", "two"):  # two browsers
            await adapter.create_session(
                {"session_token": token, "user_id": user["id"], "expires": expires}
            )
        client.cookies.set("authjs.session-token", "one")
        assert (await client.get("/api/auth/session")).json()["user"]["id"] == user["id"]
        account = (await client.get("/api/account")).json()
        assert account == {"id": user["id"], "email": "ada@example.com"}
        assert (await client.post("/api/sign-out-everywhere")).json() == {"deleted": 2}
        assert (await client.get("/api/auth/session")).json() is None
        assert (await client.get("/api/account")).status_code == 401
        document = (await client.get("/openapi.json")).json()
        assert set(document["paths"]["/api/auth/signin/{provider}"]) == {"post"}
        assert {"sessionCookie": []} in document["paths"]["/api/account"]["get"]["security"]

    async def opened() -> None:
        async with adapter:
            await on_asgi_app_async(ns["app"], steps)

    asyncio.run(opened())


def engine_by_hand(ns: Namespace) -> None:
    assert "authjs.session-token" in ns["jar"]


OUTCOMES: dict[str, Callable[[Namespace], None]] = {
    "README.md#1": readme_quick_start,
    "README.md#2": readme_github_and_email,
    "docs/bindings.md#1": bindings_auth_app,
    "docs/bindings.md#2": bindings_runtime,
    "docs/adapters/starlette.md#6": starlette_stored_user,
    "docs/configuration.md#1": configuration_callbacks,
    "docs/demo-provider.md#3": demo_provider_mounted,
    "docs/engine.md#1": engine_by_hand,
    "docs/webauthn.md#1": webauthn_setup,
}
"""Checks of what an example promises, beyond running and printing what it says."""


def test_every_outcome_names_an_example() -> None:
    keys = {example.key for path in doc_files() for example in examples(path)}
    assert set(OUTCOMES) <= keys


# -- the README's set-up notes ----------------------------------------------------------------


def test_the_readme_lists_every_demo_setting() -> None:
    readme = (ROOT / "README.md").read_text()
    demo = (ROOT / "io_bindings" / "demo.py").read_text()
    read = set(re.findall(r"os\.environ\.get\(\"([A-Z_]+)\"", demo))
    assert read == {"PORT", "DEMO_DIR", "DEMO_SESSION_STRATEGY", "AUTH_SECRET", "DEMO_SERVER"}
    for name in read:
        assert f"\n| `{name}` |" in readme, f"README.md's demo settings lack {name}"


def test_the_readme_says_what_make_test_fetches() -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    npm_cache = (ROOT / "tests" / "support" / "npm_cache.py").read_text()
    assert '"sansio-auth" / "npm"' in npm_cache  # the cache the README names
    assert "fetches `@auth/core`" in readme
    assert "from the **npm registry** into `~/.cache/sansio-auth/npm`" in readme
    assert "with `apt-get`, the Debian packages" in readme


def test_the_readme_opens_with_the_demo_the_tests_and_the_quick_loop() -> None:
    readme = (ROOT / "README.md").read_text()
    first = readme[readme.index("```") :].split("```")[1]
    commands = [line.split("#")[0].strip() for line in first.splitlines()[1:]]
    assert commands == ["make demo", "make test", "make test-quick"]
    makefile = (ROOT / "Makefile").read_text()
    assert all(f"\n{command.split()[1]}:" in makefile for command in commands)
