"""HTTPS: certificates checked against the trust store, host names, SNI, keep-alive over TLS."""

from __future__ import annotations

import json
import ssl
from collections.abc import Callable, Iterator

import pytest
import trustme

from io_bindings.http import ConnectTimeout, HTTPClient, Timeouts, TLSError
from sansio_auth.events import OutboundRequest
from tests.io_bindings.http.servers import ScriptedServer, SilentServer, echo

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
MakeClient = Callable[..., HTTPClient]


@pytest.fixture
def tls_server(server_tls: ssl.SSLContext) -> Iterator[ScriptedServer]:
    with ScriptedServer({"/echo": echo}, tls=server_tls) as running:
        yield running


def get(url: str) -> OutboundRequest:
    return OutboundRequest(method="GET", url=url)


async def test_https_with_a_trusted_certificate(
    make_client: MakeClient, tls_server: ScriptedServer, client_tls: ssl.SSLContext
) -> None:
    async with make_client(ssl_context=client_tls) as client:
        for _ in range(3):
            response = await client.send(get(f"{tls_server.url}/echo"))
            assert response.status == 200
    assert json.loads(response.body)["headers"]["host"] == f"127.0.0.1:{tls_server.port}"
    assert tls_server.connections == 1  # keep-alive over TLS


async def test_sni_carries_the_host_name(
    make_client: MakeClient, ca: trustme.CA, client_tls: ssl.SSLContext
) -> None:
    names: list[str | None] = []
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    with ScriptedServer({"/echo": echo}, tls=context) as server:
        async with make_client(ssl_context=client_tls) as client:
            response = await client.send(get(f"https://localhost:{server.port}/echo"))
    assert response.status == 200
    assert names == ["localhost"]


async def test_the_default_context_uses_the_system_store(
    make_client: MakeClient, tls_server: ScriptedServer
) -> None:
    async with make_client() as client:
        assert client.ssl_context.verify_mode is ssl.CERT_REQUIRED
        assert client.ssl_context.check_hostname
        with pytest.raises(TLSError, match="certificate verify failed"):
            await client.send(get(f"{tls_server.url}/echo"))


async def test_a_certificate_for_another_host_is_refused(
    make_client: MakeClient, ca: trustme.CA, client_tls: ssl.SSLContext
) -> None:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("op.example").configure_cert(context)
    with ScriptedServer({"/echo": echo}, tls=context) as server:
        async with make_client(ssl_context=client_tls) as client:
            with pytest.raises(TLSError, match=r"127\.0\.0\.1"):
                await client.send(get(f"{server.url}/echo"))


async def test_a_stalled_handshake_is_a_connect_timeout(
    make_client: MakeClient, client_tls: ssl.SSLContext
) -> None:
    with SilentServer() as silent:
        async with make_client(ssl_context=client_tls, timeouts=Timeouts(connect=0.2)) as client:
            with pytest.raises(ConnectTimeout):
                await client.send(get(f"https://127.0.0.1:{silent.port}/"))
