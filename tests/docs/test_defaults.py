"""The table of defaults per framework (docs/configuration.md) says what each entry point
really does: its base path and sign-in page, and the cookie names in both modes."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import anyio
import django_db
import pytest
from django.conf import settings as django_settings

if not django_settings.configured:  # the tests' one Django set-up, whichever module asks first
    django_db.configure()

from io_bindings.aiohttp import AiohttpAuth
from io_bindings.anyio import AuthApp
from io_bindings.django import DjangoAuth
from io_bindings.starlette import HostAuth
from io_bindings.wsgi import AuthWSGI
from sansio_auth import AuthConfig, Engine
from sansio_auth.settings import Settings

ROOT = Path(__file__).parents[2]
DOC = (ROOT / "docs" / "configuration.md").read_text()


def config() -> AuthConfig:
    return AuthConfig(secret="defaults-secret-that-is-long-enough-0123", trust_host=True)


def starlette() -> Settings:
    result = HostAuth(config(), env={})
    return anyio.run(result.auth.runtime).settings


def django_auth() -> Settings:
    runtime = DjangoAuth(config()).handle.runtimes.fixed
    assert runtime is not None
    return runtime.settings


FRAMEWORKS: dict[str, Any] = {
    "Starlette, FastAPI": starlette,
    "aiohttp": lambda: AiohttpAuth(config()).auth.settings,
    "Django": django_auth,
    "any ASGI server": lambda: AuthApp(config()).auth.settings,
    "WSGI": lambda: AuthWSGI(config()).auth.settings,
    "your own loop": lambda: Engine(config(), clock=time.time, entropy=bytes).settings,
}


def table(heading: str) -> list[list[str]]:
    """The rows (cells, stripped) of the table whose header row starts with ``heading``."""
    start = DOC.index(f"| {heading} |")
    lines = DOC[start:].split("\n\n")[0].splitlines()[2:]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


def code(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_base_path_and_sign_in_page(framework: str) -> None:
    [row] = [row for row in table("framework") if framework in row[0]]
    settings = FRAMEWORKS[framework]()
    assert code(row[1]) == [settings.base_path]
    assert code(row[2]) == [f"{settings.base_path}/signin"]


def test_every_framework_has_a_row() -> None:
    rows = " ".join(row[0] for row in table("framework"))
    assert all(framework in rows for framework in FRAMEWORKS)


def test_cookie_names() -> None:
    settings = FRAMEWORKS["your own loop"]()
    rows = table("cookie")
    keys = [key for row in rows for key in code(row[1])]
    assert sorted(keys) == sorted(settings.cookies.__struct_fields__)
    for row in rows:
        for key, plain, secure in zip(code(row[1]), code(row[2]), code(row[3]), strict=True):
            assert getattr(settings.cookies_for(False), key).name == plain
            assert getattr(settings.cookies_for(True), key).name == secure
