"""A server-side sign-in over the rate limit answers as the route answers it, on every
framework: the apps of ``tests/support/parity_apps.py`` (Starlette, FastAPI, aiohttp, Django)
on real servers, their counters in SQLite and in Redis, post wrong passwords to their own
``/signin`` view (which calls ``sign_in``) until the account's limit; the next attempt gets
``429`` with ``Retry-After`` and the route's page, or its JSON for a script, never a 500."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from live_server import LiveServer, free_port, serve

from tests.io_bindings.email_sign_in import new_database
from tests.io_bindings.test_adapter_parity_e2e import SECRET, command

pytestmark = pytest.mark.e2e
FRAMEWORKS = ("starlette", "fastapi", "aiohttp", "django")
LIMIT = 2


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with new_database(request.param, request, tmp_path_factory) as url:
        yield url


@pytest.fixture(params=FRAMEWORKS)
def site(request: pytest.FixtureRequest, database: str) -> Iterator[LiveServer]:
    port = free_port()
    env = {"AUTH_SECRET": SECRET, "PARITY_DATABASE": database,
           "PARITY_ACCOUNT_LIMIT": str(LIMIT)}  # fmt: skip
    with serve(command(request.param, port), port, env=env) as server:
        yield server
        log = server.log
    assert "Traceback" not in log, log
    assert "AssertionError" not in log, log


def test_a_sign_in_over_the_limit_answers_429_as_the_route_does(site: LiveServer) -> None:
    account = f"ann-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=site.url, timeout=15) as http:

        def attempt(password: str, **headers: str) -> httpx.Response:
            token = http.get("/auth/csrf").json()["csrfToken"]
            form = {"provider": "credentials", "csrfToken": token, "username": account,
                    "password": password}  # fmt: skip
            return http.post(
                "/signin", data=form, headers={"referer": f"{site.url}/login", **headers}
            )

        for _ in range(LIMIT):
            refused = attempt("wrong")
            assert refused.status_code == 303, refused.text
            assert "error=CredentialsSignin" in refused.headers["location"]
        page = attempt("pw")
        assert page.status_code == 429, page.text
        assert 55 <= int(page.headers["retry-after"]) <= 60
        assert page.headers["content-type"].startswith("text/html")
        assert "Too many attempts" in page.text
        assert "no-store" in page.headers["cache-control"]
        script = attempt("pw", **{"x-auth-return-redirect": "1"})
        assert script.status_code == 429
        assert script.headers["retry-after"]
        assert script.json()["error"] == "RateLimited"
        assert script.json()["url"].endswith("/auth/signin?error=RateLimited")
        assert http.get("/whoami").json() == {"session": None}
