"""Proxies from the environment: CONNECT tunnels for https, absolute-form for http, NO_PROXY."""

from __future__ import annotations

import base64
import json
import ssl
from collections.abc import Callable, Iterator

import pytest

from io_bindings.http import HTTPClient, ProxyError
from io_bindings.http._proxy import Proxy, ProxySettings
from sansio_auth.events import OutboundRequest
from tests.io_bindings.http.servers import ScriptedServer, TunnelProxy, echo

MakeClient = Callable[..., HTTPClient]
CREDENTIALS = "Basic " + base64.b64encode(b"proxy user:s3cret").decode()


@pytest.fixture
def http_server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"/echo": echo}) as running:
        yield running


@pytest.fixture
def tls_server(server_tls: ssl.SSLContext) -> Iterator[ScriptedServer]:
    with ScriptedServer({"/echo": echo}, tls=server_tls) as running:
        yield running


@pytest.fixture
def proxy() -> Iterator[TunnelProxy]:
    with TunnelProxy() as running:
        yield running


def get(url: str) -> OutboundRequest:
    return OutboundRequest(method="GET", url=url)


@pytest.mark.anyio
@pytest.mark.e2e
async def test_https_goes_through_a_connect_tunnel(
    make_client: MakeClient,
    tls_server: ScriptedServer,
    proxy: TunnelProxy,
    client_tls: ssl.SSLContext,
) -> None:
    env = {"HTTPS_PROXY": proxy.url}
    async with make_client(proxy_env=env, ssl_context=client_tls) as client:
        for _ in range(2):
            response = await client.send(get(f"{tls_server.url}/echo"))
            assert json.loads(response.body)["path"] == "/echo"
    assert proxy.requests == [("CONNECT", f"127.0.0.1:{tls_server.port}", None)]
    assert tls_server.connections == 1


@pytest.mark.anyio
@pytest.mark.e2e
async def test_http_goes_to_the_proxy_in_absolute_form(
    make_client: MakeClient, http_server: ScriptedServer, proxy: TunnelProxy
) -> None:
    async with make_client(proxy_env={"http_proxy": proxy.url}) as client:
        response = await client.send(get(f"{http_server.url}/echo?x=1"))
    assert response.status == 200
    assert json.loads(response.body)["headers"]["host"] == f"127.0.0.1:{http_server.port}"
    assert proxy.requests == [("GET", f"{http_server.url}/echo?x=1", None)]


@pytest.mark.anyio
@pytest.mark.e2e
async def test_proxy_credentials_from_the_url(
    make_client: MakeClient,
    tls_server: ScriptedServer,
    http_server: ScriptedServer,
    client_tls: ssl.SSLContext,
) -> None:
    with TunnelProxy(authorization=CREDENTIALS) as guarded:
        address = guarded.url.replace("http://", "http://proxy%20user:s3cret@")
        env = {"HTTPS_PROXY": address, "HTTP_PROXY": address}
        async with make_client(proxy_env=env, ssl_context=client_tls) as client:
            assert (await client.send(get(f"{tls_server.url}/echo"))).status == 200
            assert (await client.send(get(f"{http_server.url}/echo"))).status == 200
        async with make_client(proxy_env={"HTTPS_PROXY": guarded.url}) as client:
            with pytest.raises(ProxyError, match="407"):
                await client.send(get(f"{tls_server.url}/echo"))
    assert [credentials for _, _, credentials in guarded.requests] == [
        CREDENTIALS,
        CREDENTIALS,
        None,
    ]


@pytest.mark.anyio
@pytest.mark.e2e
async def test_no_proxy_connects_directly(
    make_client: MakeClient, http_server: ScriptedServer, proxy: TunnelProxy
) -> None:
    env = {"HTTP_PROXY": proxy.url, "NO_PROXY": "example.com, 127.0.0.0/8"}
    async with make_client(proxy_env=env) as client:
        assert (await client.send(get(f"{http_server.url}/echo"))).status == 200
    assert proxy.requests == []


def test_lower_case_wins_and_all_proxy_is_the_fallback() -> None:
    settings = ProxySettings(
        {"https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2", "ALL_PROXY": "all:3"}
    )
    assert settings.proxy_for("https", "op.example", 443) == Proxy(host="lower", port=1)
    assert settings.proxy_for("http", "op.example", 80) == Proxy(host="all", port=3)
    assert ProxySettings({}).proxy_for("https", "op.example", 443) is None


def test_upper_case_http_proxy_is_ignored_under_cgi() -> None:
    env = {"HTTP_PROXY": "http://attacker:8080", "REQUEST_METHOD": "GET"}
    assert ProxySettings(env).proxy_for("http", "op.example", 80) is None
    assert ProxySettings({"HTTP_PROXY": "http://p:8080"}).proxy_for("http", "a", 80) is not None


@pytest.mark.parametrize(
    ("no_proxy", "host", "port", "bypassed"),
    [
        ("*", "anything.example", 443, True),
        ("example.com", "example.com", 443, True),
        ("example.com", "login.example.com", 443, True),
        (".example.com", "login.example.com", 443, True),
        ("*.example.com", "login.example.com", 443, True),
        ("example.com", "notexample.com", 443, False),
        ("op.example:8443", "op.example", 8443, True),
        ("op.example:8443", "op.example", 443, False),
        ("10.0.0.0/8", "10.1.2.3", 443, True),
        ("10.0.0.0/8", "11.1.2.3", 443, False),
        ("::1", "::1", 443, True),
        ("[::1]:8080", "::1", 8080, True),
        ("[::1]:8080", "::1", 8081, False),
        ("a.example,  b.example", "b.example", 443, True),
        ("", "op.example", 443, False),
    ],
)
def test_no_proxy_matching(no_proxy: str, host: str, port: int, bypassed: bool) -> None:
    settings = ProxySettings({"https_proxy": "http://proxy:3128", "no_proxy": no_proxy})
    assert (settings.proxy_for("https", host, port) is None) is bypassed


def test_proxy_url_forms() -> None:
    assert Proxy.from_url("proxy.internal") == Proxy(host="proxy.internal", port=80)
    with_user = Proxy.from_url("http://u%40x:p%3Aw@proxy:3128")
    assert with_user.authorization == "Basic " + base64.b64encode(b"u@x:p:w").decode()
    for unsupported in ("https://proxy:443", "socks5://proxy:1080", "http://proxy:notaport"):
        with pytest.raises(ProxyError):
            Proxy.from_url(unsupported)


def test_proxy_errors_do_not_reveal_the_password() -> None:
    with pytest.raises(ProxyError) as caught:
        Proxy.from_url("socks5://user:hunter2@proxy:1080")
    assert "hunter2" not in str(caught.value)
