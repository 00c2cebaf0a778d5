"""The HTTP client against real local servers: bodies, framing, keep-alive, limits, errors."""

from __future__ import annotations

import gzip
import json
import socket
from collections.abc import Callable, Iterator

import anyio
import pytest

from io_bindings.http import (
    ConnectError,
    HTTPClient,
    HTTPError,
    InvalidRequest,
    NetworkError,
    ProtocolError,
    ReadTimeout,
    ResponseTooLarge,
    Timeouts,
    TotalTimeout,
)
from sansio_auth.events import OutboundRequest
from tests.io_bindings.http.servers import Received, Reply, ScriptedServer, echo

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
MakeClient = Callable[..., HTTPClient]
MiB = 1024 * 1024
GZIP = ("content-encoding", "gzip")


def get(url: str, **fields: object) -> OutboundRequest:
    return OutboundRequest(method="GET", url=url, **fields)  # type: ignore[arg-type]


def post(url: str, body: bytes = b"", headers: tuple[tuple[str, str], ...] = ()) -> OutboundRequest:
    return OutboundRequest(method="POST", url=url, body=body, headers=headers)


def nth_request_dropped(n: int) -> Callable[[Received], Reply]:
    """A handler that answers, except the ``n``-th request on a connection: then it hangs up."""

    def handler(request: Received) -> Reply:
        return Reply(close_without_answer=True) if request.index == n else echo(request)

    return handler


ROUTES = {
    "/echo": echo,
    "/chunked": lambda r: Reply(chunks=[b"hello ", b"chunked ", b"world"]),
    "/close": lambda r: Reply(headers=[("connection", "close")], body=b"bye"),
    "/hang-up-after": lambda r: Reply(body=b"ok", close_after=True),
    "/second-dropped": nth_request_dropped(2),
    "/stall": lambda r: Reply(stall=30),
    "/drip": lambda r: Reply(chunks=[b"x"] * 50, delay_between_chunks=0.1),
    "/big": lambda r: Reply(body=b"x" * (2 * MiB)),
    "/big-chunked": lambda r: Reply(chunks=[b"x" * 65536] * 40),
    "/exactly-1k": lambda r: Reply(body=b"y" * 1024),
    "/gzip": lambda r: Reply(headers=[GZIP], body=gzip.compress(b"z" * 500)),
    "/gzip-bomb": lambda r: Reply(headers=[GZIP], body=gzip.compress(b"\0" * (4 * MiB))),
    "/garbage": lambda r: Reply(raw=b"this is not HTTP\r\n\r\n"),
    "/truncated": lambda r: Reply(raw=b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc"),
    "/repeated": lambda r: Reply(headers=[("x-many", "a"), ("x-many", "b"), ("X-Case", "c")]),
    "/status": lambda r: Reply(status=503, body=b'{"error":"unavailable"}'),
}


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(ROUTES) as running:
        yield running


@pytest.fixture
def fresh_server() -> Iterator[ScriptedServer]:
    """A server of its own, for tests that count connections."""
    with ScriptedServer(ROUTES) as running:
        yield running


async def test_get_round_trip(make_client: MakeClient, server: ScriptedServer) -> None:
    async with make_client() as client:
        response = await client.send(get(f"{server.url}/echo?a=1&b=2"))
    assert response.status == 200
    assert response.headers["content-type"] == "application/json"
    seen = json.loads(response.body)
    assert seen["method"] == "GET"
    assert seen["path"] == "/echo?a=1&b=2"
    assert seen["headers"]["host"] == f"127.0.0.1:{server.port}"
    assert seen["headers"]["user-agent"] == "sansio-auth/0.1"


async def test_post_sends_body_and_headers(make_client: MakeClient, server: ScriptedServer) -> None:
    form = b"grant_type=authorization_code&code=abc"
    headers = (("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Basic x"))
    async with make_client() as client:
        response = await client.send(post(f"{server.url}/echo", form, headers))
    seen = json.loads(response.body)
    assert seen["method"] == "POST"
    assert seen["body"] == form.decode()
    assert seen["headers"]["content-length"] == str(len(form))
    assert seen["headers"]["content-type"] == "application/x-www-form-urlencoded"
    assert seen["headers"]["authorization"] == "Basic x"


async def test_empty_post_declares_zero_length(
    make_client: MakeClient, server: ScriptedServer
) -> None:
    async with make_client() as client:
        response = await client.send(post(f"{server.url}/echo"))
    assert json.loads(response.body)["headers"]["content-length"] == "0"


async def test_any_status_is_a_response(make_client: MakeClient, server: ScriptedServer) -> None:
    async with make_client() as client:
        response = await client.send(get(f"{server.url}/status"))
    assert (response.status, response.body) == (503, b'{"error":"unavailable"}')


async def test_chunked_body_is_assembled(make_client: MakeClient, server: ScriptedServer) -> None:
    async with make_client() as client:
        response = await client.send(get(f"{server.url}/chunked"))
    assert response.headers["transfer-encoding"] == "chunked"
    assert response.body == b"hello chunked world"


async def test_repeated_headers_are_joined(make_client: MakeClient, server: ScriptedServer) -> None:
    async with make_client() as client:
        response = await client.send(get(f"{server.url}/repeated"))
    assert response.headers["x-many"] == "a, b"
    assert response.headers["x-case"] == "c"


async def test_gzip_body_is_decoded(make_client: MakeClient, server: ScriptedServer) -> None:
    async with make_client() as client:
        response = await client.send(get(f"{server.url}/gzip"))
    assert response.body == b"z" * 500


async def test_keep_alive_reuses_one_connection(
    make_client: MakeClient, fresh_server: ScriptedServer
) -> None:
    async with make_client() as client:
        for _ in range(3):
            await client.send(get(f"{fresh_server.url}/echo"))
        await client.send(post(f"{fresh_server.url}/echo", b"x"))
        await client.send(get(f"{fresh_server.url}/chunked"))
        assert client.idle_connections() == 1
    assert fresh_server.connections == 1
    assert [r.index for r in fresh_server.received] == [1, 2, 3, 4, 5]


async def test_connection_close_is_honoured(
    make_client: MakeClient, fresh_server: ScriptedServer
) -> None:
    async with make_client() as client:
        for _ in range(2):
            assert (await client.send(get(f"{fresh_server.url}/close"))).body == b"bye"
        assert client.idle_connections() == 0
    assert fresh_server.connections == 2


async def test_idle_connections_per_origin_are_capped(
    make_client: MakeClient, fresh_server: ScriptedServer
) -> None:
    async with make_client(max_idle_per_origin=2) as client:
        async with anyio.create_task_group() as group:
            for _ in range(4):
                group.start_soon(client.send, get(f"{fresh_server.url}/echo"))
        assert fresh_server.connections == 4
        assert client.idle_connections() == 2
        await client.aclose()
        assert client.idle_connections() == 0


async def test_expired_idle_connection_is_replaced(
    make_client: MakeClient, fresh_server: ScriptedServer
) -> None:
    async with make_client(keepalive_expiry=0.05) as client:
        await client.send(get(f"{fresh_server.url}/echo"))
        await anyio.sleep(0.1)
        await client.send(get(f"{fresh_server.url}/echo"))
    assert fresh_server.connections == 2


async def test_idle_connection_closed_by_server_is_not_reused(
    make_client: MakeClient, fresh_server: ScriptedServer
) -> None:
    async with make_client() as client:
        assert (await client.send(get(f"{fresh_server.url}/hang-up-after"))).body == b"ok"
        await anyio.to_thread.run_sync(fresh_server.wait_closed, 1)  # hung up while idle
        await anyio.sleep(0.01)
        response = await client.send(post(f"{fresh_server.url}/echo", b"code=once"))
    assert json.loads(response.body)["body"] == "code=once"
    assert fresh_server.connections == 2


async def test_get_on_a_dropped_keep_alive_connection_is_retried_once(
    make_client: MakeClient, fresh_server: ScriptedServer
) -> None:
    async with make_client() as client:
        await client.send(get(f"{fresh_server.url}/second-dropped"))
        response = await client.send(get(f"{fresh_server.url}/second-dropped"))
    assert response.status == 200
    assert json.loads(response.body)["connection"] == 2
    assert [(r.connection, r.index) for r in fresh_server.received] == [(1, 1), (1, 2), (2, 1)]


async def test_post_on_a_dropped_keep_alive_connection_is_not_retried(
    make_client: MakeClient, fresh_server: ScriptedServer
) -> None:
    async with make_client() as client:
        await client.send(post(f"{fresh_server.url}/second-dropped"))
        with pytest.raises((ProtocolError, NetworkError)):
            await client.send(post(f"{fresh_server.url}/second-dropped"))
    assert fresh_server.connections == 1


async def test_stalled_server_raises_read_timeout(
    make_client: MakeClient, server: ScriptedServer
) -> None:
    async with make_client(timeouts=Timeouts(read=0.2)) as client:
        with pytest.raises(ReadTimeout) as caught:
            await client.send(get(f"{server.url}/stall"))
    assert isinstance(caught.value, TimeoutError)
    assert isinstance(caught.value, HTTPError)
    assert f"{server.url}/stall" in str(caught.value)


async def test_slow_drip_hits_the_total_timeout(
    make_client: MakeClient, server: ScriptedServer
) -> None:
    async with make_client(timeouts=Timeouts(read=1.0, total=0.4)) as client:
        with pytest.raises(TotalTimeout):
            await client.send(get(f"{server.url}/drip"))
        assert client.idle_connections() == 0


async def test_refused_connection_raises_connect_error(make_client: MakeClient) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with make_client() as client:
        with pytest.raises(ConnectError):
            await client.send(get(f"http://127.0.0.1:{port}/"))


@pytest.mark.parametrize("path", ["/big", "/big-chunked", "/gzip-bomb"])
async def test_body_over_the_cap_raises(
    make_client: MakeClient, server: ScriptedServer, path: str
) -> None:
    async with make_client(max_response_size=MiB) as client:
        with pytest.raises(ResponseTooLarge):
            await client.send(get(f"{server.url}{path}"))
        assert client.idle_connections() == 0
        assert (await client.send(get(f"{server.url}/echo"))).status == 200


async def test_body_at_the_cap_is_accepted(make_client: MakeClient, server: ScriptedServer) -> None:
    async with make_client(max_response_size=1024) as client:
        assert len((await client.send(get(f"{server.url}/exactly-1k"))).body) == 1024


@pytest.mark.parametrize("path", ["/garbage", "/truncated"])
async def test_invalid_http_raises_protocol_error(
    make_client: MakeClient, server: ScriptedServer, path: str
) -> None:
    async with make_client() as client:
        with pytest.raises(ProtocolError):
            await client.send(get(f"{server.url}{path}"))


@pytest.mark.parametrize(
    "request_",
    [
        OutboundRequest(method="GET", url="ftp://127.0.0.1/"),
        OutboundRequest(method="GET", url="/relative"),
        OutboundRequest(method="GET", url="http://127.0.0.1:99999/"),
        OutboundRequest(method="GET", url="http://127.0.0.1/", headers=(("x-bad", "a\r\nb"),)),
    ],
)
async def test_unsendable_request_raises_invalid_request(
    make_client: MakeClient, request_: OutboundRequest
) -> None:
    async with make_client() as client:
        with pytest.raises(InvalidRequest):
            await client.send(request_)
