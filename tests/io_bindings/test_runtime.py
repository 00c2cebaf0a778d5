"""The runtime (``Auth``): injected clock, entropy, cache and transport; backends by value."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from io_bindings.anyio import Auth, AuthApp, network_backend
from io_bindings.http import AnyioBackend, AsyncioBackend, ReadTimeout
from io_bindings.sync import SyncAuth
from sansio_auth import AuthConfig, Flow, Response
from sansio_auth.errors import fault_of
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.oauth.cache import ProviderCache
from tests.sansio_auth.driver import ORIGIN, SECRET, Browser, Clock, seeded_entropy
from tests.sansio_auth.oauth.fake_op import FakeOP, sign_in


class FakeOPTransport:
    def __init__(self, op: FakeOP) -> None:
        self.op = op

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        return self.op.handle(request)


class Recorder:
    """Drives each flow through ``auth`` on its own event loop; keeps every response."""

    def __init__(self, auth: Auth) -> None:
        self.auth = auth
        self.responses: list[Response] = []

    def run(self, flow: Flow) -> Response:
        response = anyio.run(flow.run, self.auth.perform)
        self.responses.append(response)
        return response


def oidc_sign_in(seed: int) -> list[tuple[Any, ...]]:
    clock = Clock()
    op = FakeOP(clock)
    cache = ProviderCache()
    auth = Auth(
        AuthConfig(secret=SECRET, trust_host=True, providers=[op.provider()]),
        clock=clock,
        entropy=seeded_entropy(seed),
        cache=cache,
        transport=FakeOPTransport(op),
        env={},
    )
    assert auth.engine.cache is cache
    recorder = Recorder(auth)
    browser = Browser(auth.engine, recorder, clock, ORIGIN)  # type: ignore[arg-type]
    callback = sign_in(browser, op)
    assert callback.status == 302
    assert browser.session()["user"]["email"] == "alice@example.com"
    return [(r.status, r.header_list(), r.body) for r in recorder.responses]


def test_a_fixed_clock_and_entropy_make_an_oidc_sign_in_byte_identical() -> None:
    first, second = oidc_sign_in(seed=7), oidc_sign_in(seed=7)
    assert len(first) >= 4
    assert first == second
    assert oidc_sign_in(seed=8) != first  # the entropy is what is used, not a constant


def test_network_backends_by_value() -> None:
    assert isinstance(network_backend("anyio"), AnyioBackend)
    assert isinstance(network_backend("asyncio"), AsyncioBackend)
    backend = AsyncioBackend()
    assert network_backend(backend) is backend
    with pytest.raises(ValueError, match="unknown network backend"):
        network_backend("gevent")  # type: ignore[arg-type]
    auth = Auth(AuthConfig(secret=SECRET, trust_host=True), env={}, backend="asyncio")
    assert auth.http_client is not None
    assert isinstance(auth.http_client.backend, AsyncioBackend)


def test_auth_app_takes_a_config_or_an_auth() -> None:
    auth = Auth(AuthConfig(secret=SECRET, trust_host=True), env={})
    assert AuthApp(auth=auth).auth is auth
    with pytest.raises(TypeError):
        AuthApp()
    with pytest.raises(TypeError):
        AuthApp(AuthConfig(secret=SECRET, trust_host=True), auth=auth)
    with pytest.raises(TypeError):
        AuthApp(auth=auth, env={})


def test_the_http_clients_failures_are_the_providers() -> None:
    assert fault_of(ReadTimeout("slow", url="https://op")) == "provider"


def test_a_short_secret_is_logged_at_start_up(caplog: pytest.LogCaptureFixture) -> None:
    """The runtime logs the settings' warnings once, when it is made; never the secret."""
    with caplog.at_level("WARNING", logger="sansio_auth"):
        Auth(AuthConfig(secret="tiny-secret", trust_host=True), env={})
        assert [r.getMessage() for r in caplog.records] == [
            "[auth][warn][short-secret] Read more: https://warnings.authjs.dev"
        ]
        caplog.clear()
        Auth(AuthConfig(secret=SECRET, trust_host=True), env={})
        assert caplog.records == []


@pytest.mark.parametrize("runtime", [Auth, SyncAuth])
def test_both_runtimes_log_the_start_up_warnings(
    caplog: pytest.LogCaptureFixture, runtime: type[Auth] | type[SyncAuth]
) -> None:
    """The sync runtime (WSGI, Flask) warns as the async one does: here Auth.js's
    ``env-url-basepath-mismatch`` (``AUTH_URL``'s path is not ``base_path``)."""
    env = {"AUTH_URL": "https://shop.example/api/auth"}
    with caplog.at_level("WARNING", logger="sansio_auth"):
        runtime(AuthConfig(secret=SECRET, base_path="/auth"), env=env)
    assert [r.getMessage() for r in caplog.records] == [
        "[auth][warn][env-url-basepath-mismatch] Read more: https://warnings.authjs.dev"
    ]
