"""Fixtures of the OAuth e2e tests: the real OP, the tampering proxy in front of it, and the
app on uvicorn (asyncio binding) and on hypercorn's trio worker (trio binding)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from live_server import SERVERS, free_port, serve

from tests.e2e_oauth.harness import Browser, OAuthServer, browser, provider_mappings
from tests.e2e_oauth.tampering_proxy import Tamper, TamperingProxy, serve_proxy
from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]

PROVIDER_IDS = (
    "op",
    "op-post",
    "op-public",
    "op-form",
    "op-oauth",
    "tamper",
    "tamper-userinfo",
    "pkce-plain",
    "small-key",
)
BINDINGS = {"uvicorn": "asyncio", "hypercorn-trio": "trio"}
TIMEOUTS = {"connect": 2.0, "read": 1.5, "write": 2.0, "total": 4.0}
"""The app's HTTP client timeouts: small, so that the stalled token endpoint costs 1.5 s."""
CRASHES = ("unexpected failure serving", "Exception in ASGI application", "Error in ASGI Framework")


@pytest.fixture(scope="session")
def tampering_proxy(oidc_op: OpenIDProvider) -> Iterator[TamperingProxy]:
    with serve_proxy(TamperingProxy(oidc_op)) as proxy:
        yield proxy


@pytest.fixture
def proxy(tampering_proxy: TamperingProxy) -> Iterator[TamperingProxy]:
    """The proxy, honest again after the test."""
    yield tampering_proxy
    tampering_proxy.tamper = Tamper()


@pytest.fixture(scope="session", params=sorted(SERVERS))
def server(
    request: pytest.FixtureRequest,
    oidc_op: OpenIDProvider,
    tampering_proxy: TamperingProxy,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[OAuthServer]:
    """``oauth_app`` on each server in turn, with clients registered for its port."""
    name: str = request.param
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    directory = tmp_path_factory.mktemp(f"oauth-{name}")
    redirect_uris = [f"{url}/auth/callback/{id_}" for id_ in PROVIDER_IDS]
    clients = {
        method: oidc_op.register_client(redirect_uris, token_endpoint_auth_method=method)
        for method in ("client_secret_basic", "client_secret_post", "none")
    }
    providers = provider_mappings(oidc_op, tampering_proxy.url, clients)
    assert tuple(p["id"] for p in providers) == PROVIDER_IDS
    options = {
        "providers": providers,
        "binding": BINDINGS[name],
        "timeouts": TIMEOUTS,
        "events": str(directory / "events.jsonl"),
    }
    config = directory / "config.json"
    config.write_text(json.dumps(options))
    command = SERVERS[name](port=port, app="oauth_app:app")
    with serve(command, port, env={"E2E_OAUTH_CONFIG": str(config)}) as live:
        yield OAuthServer(name, live, directory / "events.jsonl", {p["id"]: p for p in providers})
        log = live.log
    for crash in CRASHES:
        assert crash not in log, log


@pytest.fixture
def client(
    server: OAuthServer, oidc_op: OpenIDProvider, tampering_proxy: TamperingProxy
) -> Iterator[Browser]:
    """A fresh browser."""
    with browser(server, oidc_op, tampering_proxy.url) as fresh:
        yield fresh
