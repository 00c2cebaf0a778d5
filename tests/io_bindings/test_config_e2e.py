"""Configuration as Auth.js takes it, on a real server (uvicorn): a function provider whose
``options`` deep-merge into nested parameters, and the ``env-url-basepath-mismatch``
warning at start-up."""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from live_server import LiveServer, free_port, serve, uvicorn_command

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def site() -> Iterator[LiveServer]:
    port = free_port()
    env = {"AUTH_URL": f"http://127.0.0.1:{port}/api/auth"}
    with serve(uvicorn_command("config_app:app", port), port, env=env) as live:
        yield live


def test_a_function_provider_with_deep_merged_options(site: LiveServer) -> None:
    with httpx.Client(base_url=site.url) as http:
        assert http.get("/auth/providers").json()["acme"]["type"] == "oauth"
        csrf = http.get("/auth/csrf").json()["csrfToken"]
        started = http.post("/auth/signin/acme", data={"csrfToken": csrf})
    assert started.status_code == 302
    location = started.headers["location"]
    assert location.startswith("https://op.example/authorize?")
    params = dict(parse_qsl(urlsplit(location).query))
    assert json.loads(params["claims"]) == {
        "userinfo": {"email": {"essential": True}, "name": {"essential": True}}
    }
    assert params["client_id"] == "acme-client"


def test_auth_url_and_base_path_mismatch_is_warned(site: LiveServer) -> None:
    warning = "[auth][warn][env-url-basepath-mismatch] Read more: https://warnings.authjs.dev"
    assert warning in site.log
