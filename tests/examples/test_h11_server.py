"""examples/h11_server.py end to end: a real process, real sockets, the real test OP."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator

import httpx
import pytest
from live_server import ROOT, LiveServer, csrf_token, free_port, serve

from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(oidc_op: OpenIDProvider) -> Iterator[LiveServer]:
    port = free_port()
    client = oidc_op.register_client([f"http://127.0.0.1:{port}/auth/callback/op"])
    env = {
        "READ_TIMEOUT": "0.5",
        "OIDC_ISSUER": oidc_op.issuer,
        "OIDC_CLIENT_ID": client.client_id,
        "OIDC_CLIENT_SECRET": client.client_secret or "",
    }
    command = [sys.executable, str(ROOT / "examples" / "h11_server.py"), str(port)]
    with serve(command, port, env=env) as live:
        yield live
        log = live.log
    assert "Traceback" not in log, log


@pytest.fixture
def browser(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url) as client:
        yield client


def test_credentials_sign_in(browser: httpx.Client) -> None:
    assert "Signed in: nobody" in browser.get("/").text
    form = {"csrfToken": csrf_token(browser), "username": "ann", "password": "pw"}
    assert browser.post("/auth/callback/credentials", data=form).status_code == 302
    assert "Signed in: ann@example.com" in browser.get("/").text


def test_oidc_sign_in(browser: httpx.Client, oidc_op: OpenIDProvider) -> None:
    start = browser.post("/auth/signin/op", data={"csrfToken": csrf_token(browser)})
    assert start.status_code == 302
    with httpx.Client() as op_browser:
        answer = oidc_op.login(op_browser, start.headers["location"])
    assert answer.send(browser).status_code == 302
    assert f"Signed in: {oidc_op.account.email}" in browser.get("/").text


def raw(server: LiveServer, data: bytes) -> bytes:
    """Send ``data`` on a fresh connection; everything the server sends until it closes."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_keep_alive_serves_two_requests_on_one_connection(server: LiveServer) -> None:
    request = b"GET /auth/providers HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"
    closing = b"GET /nowhere HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n"
    answer = raw(server, request + closing)
    assert answer.count(b"HTTP/1.1 200") == 1
    assert answer.count(b"HTTP/1.1 404") == 1


def test_limits_and_malformed_requests_get_answers(server: LiveServer) -> None:
    big_body = (
        b"POST /auth/callback/credentials HTTP/1.1\r\nhost: x\r\ncontent-length: 70000\r\n\r\n"
    )
    assert raw(server, big_body).startswith(b"HTTP/1.1 413")
    big_header = b"GET / HTTP/1.1\r\nhost: x\r\nx-big: " + b"a" * 20000 + b"\r\n\r\n"
    assert raw(server, big_header).startswith(b"HTTP/1.1 431")
    assert raw(server, b"NOT HTTP AT ALL\r\n\r\n").startswith(b"HTTP/1.1 400")
    assert raw(server, b"GET / HTTP/1.1\r\nhost: user@evil.example\r\n\r\n").startswith(
        b"HTTP/1.1 400"
    )


def test_a_stalled_request_times_out_and_an_idle_connection_closes(server: LiveServer) -> None:
    assert raw(server, b"GET / HTTP/1.1\r\nhost: x\r\n").startswith(b"HTTP/1.1 408")
    assert raw(server, b"") == b""  # idle past READ_TIMEOUT: closed without a word
