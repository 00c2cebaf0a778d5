"""On real servers: lazy config per request (FastAPI, uvicorn) and, in production, a missing
secret failing the first request with ``MissingSecretError`` (Starlette, hypercorn -k trio)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.io_bindings.starlette.e2e import browser_client, serve_example

pytestmark = pytest.mark.e2e


def test_lazy_config_per_request(tmp_path: Path) -> None:
    db = tmp_path / "auth.db"
    with (
        serve_example("fastapi", db, {"EXAMPLE_LAZY_CONFIG": "1"}) as site,
        browser_client(site) as http,
    ):
        assert "staging" not in http.get("/api/auth/providers").json()
        staging = {"x-example-staging": "1"}
        assert "staging" in http.get("/api/auth/providers", headers=staging).json()
        form = {"provider": "staging", "username": "demo", "password": "demo"}
        answer = http.post("/signin", data=form, headers=staging)
        assert answer.status_code == 303, answer.text
        assert http.get("/api/me").json()["user"]["name"] == "Demo User"
        refused = http.post("/signin", data=form)  # not a provider without the header
        assert refused.headers["location"].startswith(f"{site.url}/api/auth/signin?")


@pytest.mark.parametrize("production", [{"ENV": "production"}, {"AUTH_URL": "https://app.test"}])
def test_production_without_a_secret(tmp_path: Path, production: dict[str, str]) -> None:
    env = {"AUTH_SECRET": "", "NEXTAUTH_SECRET": "", "AUTH_TRUST_HOST": "true", **production}
    with serve_example("starlette", tmp_path / "auth.db", env, crashes=True) as site:
        with browser_client(site) as http:
            assert http.get("/").status_code == 500
            assert http.get("/api/auth/session").status_code == 500
        log = site.log
    assert "MissingSecret" in log
    assert "AUTH_SECRET" in log
