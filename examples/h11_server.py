"""A complete HTTP/1.1 server on raw h11 over anyio that embeds the auth engine.

    python examples/h11_server.py [PORT]     # then open http://127.0.0.1:PORT/

Keep-alive, limits on header and body size, a timeout per read, and every failure
answered (400 for a malformed request, 408 when the client stalls, 413 for a body over
the limit, 500 if serving fails) or the connection closed. ``/auth/*`` is the engine's
(through :class:`io_bindings.anyio.Auth`); ``/`` is a page that shows the session.
"""

from __future__ import annotations

import html
import logging
import os
import sys
from http import HTTPStatus
from typing import Any

import anyio
import h11
from anyio.abc import SocketStream

from io_bindings.anyio import Auth
from io_bindings.translate import BadHost, make_request, plain, server_error
from sansio_auth import AuthConfig, Request, Response
from sansio_auth.http import headers_from_pairs
from sansio_auth.providers import Credentials

MAX_HEADER_BYTES = 16 * 1024
MAX_BODY_BYTES = 64 * 1024
READ_TIMEOUT = float(os.environ.get("READ_TIMEOUT", "10"))
"""Seconds a client may stay silent mid-request, or idle between keep-alive requests."""


class ClientError(Exception):
    """A request the server refuses before the engine sees it, with the answer to send."""

    def __init__(self, response: Response) -> None:
        self.response = response


def authorize(credentials: dict[str, Any]) -> dict[str, str] | None:
    """The demo's one user: ann / pw."""
    if credentials.get("username") == "ann" and credentials.get("password") == "pw":
        return {"id": "1", "name": "Ann", "email": "ann@example.com"}
    return None


def default_config() -> AuthConfig:
    """Credentials sign-in, and an OpenID Provider when ``OIDC_ISSUER``, ``OIDC_CLIENT_ID``
    and ``OIDC_CLIENT_SECRET`` are set; the secret from ``AUTH_SECRET`` (or a demo one)."""
    secret = os.environ.get("AUTH_SECRET", "h11-example-secret-change-me-0123456789abcdef")
    providers: list[Any] = [Credentials(authorize=authorize)]
    if os.environ.get("OIDC_ISSUER"):
        names = {"issuer": "OIDC_ISSUER", "client_id": "OIDC_CLIENT_ID",
                 "client_secret": "OIDC_CLIENT_SECRET"}  # fmt: skip
        op = {key: os.environ[name] for key, name in names.items()}
        providers.append({"id": "op", "name": "OpenID", "type": "oidc", **op})
    return AuthConfig(secret=secret, trust_host=True, providers=providers)


class Server:
    """Serves ``auth`` (the runtime) and a home page, one task per connection."""

    def __init__(self, auth: Auth) -> None:
        self.auth = auth

    async def handle_connection(self, stream: SocketStream) -> None:
        """Serve requests on one connection until either side closes it."""
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEADER_BYTES)
        async with stream:
            while conn.our_state is not h11.CLOSED and conn.their_state is not h11.CLOSED:
                try:
                    response = await self.serve_one(conn, stream)
                except ClientError as refused:
                    if conn.their_state is h11.IDLE and not conn.trailing_data[0]:
                        return  # an idle keep-alive connection timed out: just close
                    response = refused.response
                    if conn.our_state is not h11.SEND_RESPONSE:  # h11 saw no request
                        await stream.send(bare_response(response))
                        return
                except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    return
                if response is None:  # the client closed between requests
                    return
                await self.send(conn, stream, response)
                if h11.MUST_CLOSE in (conn.our_state, conn.their_state):
                    return
                try:
                    conn.start_next_cycle()
                except h11.LocalProtocolError:  # the request body was not read: close
                    return

    async def next_event(self, conn: h11.Connection, stream: SocketStream) -> Any:
        """The next h11 event, reading (with a timeout) as needed."""
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as err:
                status = 431 if "exceeds" in str(err) else err.error_status_hint
                raise ClientError(plain(status, "Bad request")) from err
            if event is not h11.NEED_DATA:
                return event
            with anyio.move_on_after(READ_TIMEOUT) as scope:
                data = await _receive(stream)
            if scope.cancelled_caught:
                raise ClientError(plain(408, "Request Timeout"))
            conn.receive_data(data)

    async def serve_one(self, conn: h11.Connection, stream: SocketStream) -> Response | None:
        """Read one request and answer it (``None`` when the client closed first)."""
        event = await self.next_event(conn, stream)
        if isinstance(event, h11.ConnectionClosed):
            return None
        assert isinstance(event, h11.Request)
        method, target = event.method.decode(), event.target.decode("latin-1")
        if sum(len(name) + len(value) for name, value in event.headers) > MAX_HEADER_BYTES:
            raise ClientError(plain(431, "Request Header Fields Too Large"))
        headers = headers_from_pairs(event.headers)
        declared = headers.get("content-length", "0")
        if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            raise ClientError(plain(413, "Request body too large"))
        body = b""
        while not isinstance(part := await self.next_event(conn, stream), h11.EndOfMessage):
            body += part.data
            if len(body) > MAX_BODY_BYTES:
                raise ClientError(plain(413, "Request body too large"))
        path, _, query = target.partition("?")
        try:
            host = headers.get("host", "")
            request = make_request(
                method,
                scheme="http",
                host=host,
                raw_path=path,
                query=query,
                headers=headers,
                body=body,
            )
        except BadHost:
            return plain(400, "Bad Request: invalid Host header")
        try:
            response = await self.auth.respond(request)
            return response if response is not None else await self.home(request, path)
        except Exception:
            return server_error(path)

    async def home(self, request: Request, path: str) -> Response:
        """``/``: who is signed in, with a link to sign in or out; 404 elsewhere."""
        if path != "/":
            return plain(404, "Not Found")
        session = (await self.auth.session(request)).data
        who = html.escape(session["user"]["email"]) if session else "nobody"
        link = (
            '<a href="/auth/signout">Sign out</a>'
            if session
            else '<a href="/auth/signin">Sign in</a>'
        )
        page = f"<!doctype html><title>h11 example</title><p>Signed in: {who}</p>{link}"
        return Response(status=200, headers=(("content-type", "text/html; charset=utf-8"),),
                        body=page.encode())  # fmt: skip

    async def send(self, conn: h11.Connection, stream: SocketStream, response: Response) -> None:
        """Send ``response`` (with its length; ``connection: close`` is h11's business)."""
        headers = [*response.header_list(), ("content-length", str(len(response.body)))]
        reason = HTTPStatus(response.status).phrase.encode()
        data = conn.send(h11.Response(status_code=response.status, headers=headers, reason=reason))
        data += conn.send(h11.Data(data=response.body)) + conn.send(h11.EndOfMessage())
        await stream.send(data)


def bare_response(response: Response) -> bytes:
    """``response`` as bytes with ``connection: close``, for when h11 cannot frame it (the
    request never became one)."""
    head = f"HTTP/1.1 {response.status} {HTTPStatus(response.status).phrase}\r\n"
    fields = [*response.header_list(), ("content-length", str(len(response.body)))]
    head += "".join(f"{name}: {value}\r\n" for name, value in fields)
    return f"{head}connection: close\r\n\r\n".encode("latin-1") + response.body


async def _receive(stream: SocketStream) -> bytes:
    """Up to 64 KiB; ``b""`` once the client has closed (h11's end of stream)."""
    try:
        return await stream.receive(65536)
    except anyio.EndOfStream:
        return b""


async def main(port: int, config: AuthConfig | None = None) -> None:
    """Serve on 127.0.0.1:``port`` until cancelled."""
    server = Server(Auth(config or default_config()))
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
    print(f"serving on http://127.0.0.1:{port}/", flush=True)
    await listener.serve(server.handle_connection)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 8000)
