"""Fixtures for the sender tests: async tests on asyncio and trio; TLS from a throwaway CA."""

from __future__ import annotations

import ssl

import pytest
import trustme


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """The event loop (anyio's pytest plugin runs ``@pytest.mark.anyio`` tests on it)."""
    name: str = request.param
    return name


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    """A throwaway certificate authority."""
    return trustme.CA()


@pytest.fixture(scope="session")
def server_tls(ca: trustme.CA) -> ssl.SSLContext:
    """The SMTP server's TLS settings: a certificate for ``127.0.0.1``."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    return context


@pytest.fixture(scope="session")
def client_tls(ca: trustme.CA) -> ssl.SSLContext:
    """The sender's TLS settings: the system defaults, also trusting the throwaway CA."""
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context
