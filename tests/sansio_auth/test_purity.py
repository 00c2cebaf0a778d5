"""The engine does no IO: it imports no IO module and reads no clock, entropy or environment."""

import ast
import os
import random
import secrets
import threading
import time
import uuid
from pathlib import Path

import pytest

from sansio_auth import AuthConfig, Engine
from sansio_auth.providers import Credentials
from tests.sansio_auth.driver import ANN, SECRET, Browser, Clock, Performer, seeded_entropy, users

PACKAGE = Path(__file__).parents[2] / "sansio_auth"
FORBIDDEN_MODULES = {
    "socket",
    "ssl",
    "asyncio",
    "anyio",
    "trio",
    "threading",
    "multiprocessing",
    "time",
    "os",
    "urllib.request",
    "http.client",
    "subprocess",
    "selectors",
    "select",
    "random",
    "secrets",
    "io_bindings",
}
FORBIDDEN_CALLS = {"now", "utcnow", "today", "uuid1", "uuid4", "getenv", "urandom"}


def modules():
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 20
    return files


def imported_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "__import__"
        ):
            names.add("__import__")
    return names


def forbidden(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in FORBIDDEN_MODULES) or name in (
        "__import__",
        "importlib",
    )


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_imports_no_io(path):
    tree = ast.parse(path.read_text(), str(path))
    bad = sorted(name for name in imported_names(tree) if forbidden(name))
    assert bad == [], f"{path.relative_to(PACKAGE.parent)} imports {bad}"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_reads_no_clock_or_randomness(path):
    tree = ast.parse(path.read_text(), str(path))
    calls = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }
    assert calls.isdisjoint(FORBIDDEN_CALLS), f"{path} calls {calls & FORBIDDEN_CALLS}"


def test_the_scanner_catches_what_it_must():
    tree = ast.parse("import os.path\nfrom time import time\nfrom http import client\n")
    assert sorted(filter(forbidden, imported_names(tree))) == [
        "http.client",
        "os.path",
        "time",
        "time.time",
    ]
    assert forbidden("http.client")
    assert not forbidden("hashlib")


def _in_test_thread(owner):
    # Other threads (servers of session-scoped fixtures) keep the real functions.
    return threading.get_ident() == owner


class NoEnvironment(dict):
    """An ``os.environ`` stand-in that fails on any read from the test's thread."""

    def __init__(self, real, owner):
        super().__init__()
        self._real, self._owner = real, owner

    def _guard(name):  # noqa: N805 - builds the methods below
        def method(self, *args, **kwargs):
            if _in_test_thread(self._owner):
                raise AssertionError("the engine read os.environ")
            return getattr(self._real, name)(*args, **kwargs)

        return method

    __getitem__ = _guard("__getitem__")
    get = _guard("get")
    __contains__ = _guard("__contains__")
    __iter__ = _guard("__iter__")
    keys = _guard("keys")
    items = _guard("items")
    values = _guard("values")
    copy = _guard("copy")


def refuse(name, original, owner):
    def fail(*args, **kwargs):
        if _in_test_thread(owner):
            raise AssertionError(f"the engine called {name}")
        return original(*args, **kwargs)

    return fail


@pytest.fixture
def no_ambient_io(monkeypatch):
    owner = threading.get_ident()
    for module, names in (
        (time, ["time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "localtime"]),
        (os, ["urandom", "getenv", "getrandom"]),
        (secrets, ["token_bytes", "token_hex", "token_urlsafe", "randbits", "choice"]),
        (random, ["random", "randbytes", "getrandbits", "randint", "choice", "shuffle"]),
        (uuid, ["uuid1", "uuid4"]),
    ):
        for name in names:
            if hasattr(module, name):
                original = getattr(module, name)
                fake = refuse(f"{module.__name__}.{name}", original, owner)
                monkeypatch.setattr(module, name, fake)
    monkeypatch.setattr(os, "environ", NoEnvironment(os.environ, owner))


def test_the_patches_bite(no_ambient_io):
    with pytest.raises(AssertionError):
        time.time()
    with pytest.raises(AssertionError):
        os.urandom(1)
    with pytest.raises(AssertionError):
        os.environ.get("AUTH_SECRET")
    with pytest.raises(AssertionError):
        uuid.uuid4()


def test_a_whole_sign_in_uses_only_the_injected_clock_entropy_and_env(no_ambient_io):
    clock = Clock()
    config = AuthConfig(
        providers=[Credentials(authorize=users(ANN), credentials={"username": {}})],
        trust_host=None,
    )
    engine = Engine(
        config,
        clock=clock,
        entropy=seeded_entropy("purity"),
        env={"AUTH_SECRET": SECRET, "AUTH_TRUST_HOST": "true"},
    )
    browser = Browser(engine, Performer(engine), clock, "http://localhost:3000")
    assert browser.get("/auth/signin").status == 200
    response = browser.sign_in_with_credentials(username="ann", password="pw")
    assert response.status == 302
    assert browser.session()["user"]["name"] == "Ann"
    clock.advance(2 * 86400)
    assert browser.session()["user"]["name"] == "Ann"  # re-issued: encrypts again
    assert browser.update_session({"x": 1}).status == 200
    assert browser.sign_out().status == 302
    assert browser.session() is None


def test_the_same_inputs_give_the_same_outputs():
    def run():
        clock = Clock()
        config = AuthConfig(
            secret=SECRET, trust_host=True, providers=[Credentials(authorize=users(ANN))]
        )
        engine = Engine(config, clock=clock, entropy=seeded_entropy(7))
        browser = Browser(engine, Performer(engine), clock, "http://localhost:3000")
        response = browser.sign_in_with_credentials(username="ann", password="pw")
        return response.header_list()

    assert run() == run()


def test_a_passkey_registration_and_sign_in_use_only_the_injected_inputs(no_ambient_io):
    from sansio_auth.providers import Passkey
    from tests.sansio_auth.webauthn_peer import PasskeyPeer

    for strategy in ("database", "jwt"):
        peer = PasskeyPeer.build(Passkey(), session={"strategy": strategy})
        assert peer.register("ann@example.com").status == 302
        assert peer.browser.sign_out().status == 302
        assert peer.authenticate().status == 302
        assert peer.browser.session()["user"]["email"] == "ann@example.com"
