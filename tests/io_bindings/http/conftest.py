"""Fixtures for the HTTP client tests: every async test runs on asyncio and trio, through the
anyio backend and through the loop's native backend; TLS material comes from a throwaway CA."""

from __future__ import annotations

import ssl
from collections.abc import Callable

import pytest
import trustme

from io_bindings.http import AnyioBackend, AsyncioBackend, HTTPClient, NetworkBackend, TrioBackend


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """The event loop (anyio's pytest plugin runs ``@pytest.mark.anyio`` tests on it)."""
    name: str = request.param
    return name


@pytest.fixture(params=["anyio", "native"])
def network_backend(request: pytest.FixtureRequest, anyio_backend: str) -> NetworkBackend:
    """The client's network backend: anyio's, or the one written for the running loop."""
    if request.param == "anyio":
        return AnyioBackend()
    return AsyncioBackend() if anyio_backend == "asyncio" else TrioBackend()


@pytest.fixture
def make_client(network_backend: NetworkBackend) -> Callable[..., HTTPClient]:
    """``make_client(**options)``: an :class:`HTTPClient` on the backend under test, no proxy."""

    def make(**options: object) -> HTTPClient:
        options.setdefault("proxy_env", {})
        return HTTPClient(network_backend, **options)  # type: ignore[arg-type]

    return make


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    """A throwaway certificate authority."""
    return trustme.CA()


@pytest.fixture(scope="session")
def server_tls(ca: trustme.CA) -> ssl.SSLContext:
    """Server TLS settings with a certificate for ``127.0.0.1`` and ``localhost``."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


@pytest.fixture(scope="session")
def client_tls(ca: trustme.CA) -> ssl.SSLContext:
    """Client TLS settings (as the client's default) that trust the throwaway CA."""
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context
