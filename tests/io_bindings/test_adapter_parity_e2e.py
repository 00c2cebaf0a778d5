"""The three framework adapters answer the same requests the same way: one app per
framework (``tests/support/parity_apps.py``, each written as its users write it) on a real
server, the same browser script against each, and the answers compared: status,
``Location``, the cookies set or deleted (their attributes too), and the JSON bodies.

The script: signed out, a cross-site sign-in post (refused before anything runs), a wrong
password (back to the form's page with the error), a sign-in (to the ``Referer``), the
session, an update (and a cross-site one), a sign-out, the engine's own routes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import httpx
import pytest
from live_server import LiveServer, free_port, serve, uvicorn_command

pytestmark = pytest.mark.e2e
SECRET = "parity-test-secret-0123456789-abcdefghijklmnop"
SESSION = "authjs.session-token"


def command(framework: str, port: int) -> list[str]:
    if framework == "aiohttp":
        return [sys.executable, "-m", "aiohttp.web", "-H", "127.0.0.1", "-P", str(port),
                "parity_apps:aiohttp_app"]  # fmt: skip
    return [*uvicorn_command(f"parity_apps:{framework}_app", port), "--factory"]


@pytest.fixture(scope="module")
def answers() -> dict[str, list[Any]]:
    """Each framework's answers to the script."""
    found = {}
    for framework in ("starlette", "django", "aiohttp"):
        port = free_port()
        with serve(command(framework, port), port, env={"AUTH_SECRET": SECRET}) as server:
            found[framework] = script(server)
            assert "Traceback" not in server.log, server.log
    return found


def script(server: LiveServer) -> list[Any]:
    origin = server.url
    seen: list[Any] = []
    with httpx.Client(base_url=origin, timeout=15) as http:

        def step(name: str, response: httpx.Response) -> None:
            seen.append((name, answer(response, origin)))

        step("signed out", http.get("/whoami"))
        token = http.get("/auth/csrf").json()["csrfToken"]
        login = {"provider": "credentials", "csrfToken": token, "username": "ann"}
        evil = {"origin": "http://evil.test", "referer": "http://evil.test/"}
        step(
            "cross-site sign-in",
            http.post("/signin", data={**login, "password": "pw"}, headers=evil),
        )
        step("wrong password", http.post(
            "/signin", data={**login, "password": "no"},
            headers={"origin": origin, "referer": f"{origin}/login?tab=1"},
        ))  # fmt: skip
        step("sign-in", http.post(
            "/signin", data={**login, "password": "pw"}, headers={"referer": f"{origin}/here"}
        ))  # fmt: skip
        step("signed in", http.get("/whoami"))
        step("session route", http.get("/auth/session"))
        step("cross-site update", http.post("/update", data={"name": "Eve"}, headers=evil))
        step("update", http.post("/update", data={"name": "Annie"}))
        step("updated", http.get("/whoami"))
        out = {"csrfToken": token, "redirectTo": "/bye"}
        step("cross-site sign-out", http.post("/signout", data=out, headers=evil))
        step("sign-out", http.post("/signout", data=out, headers={"origin": origin}))
        step("signed out again", http.get("/whoami"))
        step("providers", http.get("/auth/providers"))
    return seen


def answer(response: httpx.Response, origin: str) -> dict[str, Any]:
    """What is compared: status, ``Location``, cookies (name, deleted, attributes but the
    date), the JSON body (``expires`` aside); the origin (each server's port) as ``ORIGIN``."""
    cookies = []
    for line in response.headers.get_list("set-cookie"):
        name, _, rest = line.partition("=")
        value, *attributes = rest.split("; ")
        kept = sorted(a for a in attributes if not a.startswith("Expires="))
        cookies.append((name, value == "", kept))
    body: Any = None
    if "json" in response.headers.get("content-type", ""):
        body = _without_expires(json.loads(response.text.replace(origin, "ORIGIN")))
    return {
        "status": response.status_code,
        "location": response.headers.get("location", "").replace(origin, "ORIGIN"),
        "cookies": sorted(cookies),
        "body": body,
    }


def _without_expires(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_expires(v) for k, v in value.items() if k != "expires"}
    return value


def test_the_script_does_what_it_says(answers: dict[str, list[Any]]) -> None:
    steps = dict(answers["starlette"])
    assert steps["signed out"]["body"] == {"session": None}
    assert steps["cross-site sign-in"]["status"] == 403
    assert steps["cross-site sign-in"]["cookies"] == []
    assert (
        steps["wrong password"]["location"]
        == "/login?tab=1&error=CredentialsSignin&code=credentials"
    )
    assert steps["sign-in"]["location"] == "ORIGIN/here"
    assert SESSION in [name for name, deleted, _ in steps["sign-in"]["cookies"] if not deleted]
    assert steps["signed in"]["body"]["session"]["user"]["email"] == "ann@example.com"
    assert steps["cross-site update"]["status"] == 403
    assert steps["update"]["body"]["session"]["user"]["name"] == "Annie"
    assert steps["updated"]["body"]["session"]["user"]["name"] == "Annie"
    assert steps["cross-site sign-out"]["status"] == 403
    assert steps["sign-out"]["location"] == "ORIGIN/bye"
    assert steps["signed out again"]["body"] == {"session": None}


@pytest.mark.parametrize("framework", ["django", "aiohttp"])
def test_every_framework_answers_as_starlette(
    answers: dict[str, list[Any]], framework: str
) -> None:
    for (name, expected), (_, got) in zip(answers["starlette"], answers[framework], strict=True):
        assert got == expected, (framework, name)
