"""Real local servers for the HTTP client tests: a scriptable h11 server and a CONNECT proxy.

Both run in threads on 127.0.0.1, so the client under test can run on any event loop.

>>> with ScriptedServer(ROUTES) as server:        # or ScriptedServer(ROUTES, tls=ca)
...     server.url, server.connections            # accepted TCP connections so far
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

import h11


@dataclass
class Received:
    """A request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    connection: int
    """Which accepted connection (1, 2, ...) carried it."""
    index: int
    """Its position on that connection (1 for the first request)."""


@dataclass
class Reply:
    """What the handler answers; ``chunks`` without ``length`` are sent chunked."""

    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    chunks: list[bytes] | None = None
    delay_between_chunks: float = 0.0
    stall: float = 0.0
    """Seconds to wait before answering at all."""
    close_without_answer: bool = False
    close_after: bool = False
    """Close the socket after answering, without a ``Connection: close`` header."""
    raw: bytes | None = None
    """Bytes written as the whole answer (for malformed responses)."""


Handler = Callable[[Received], Reply]
DENIED = b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n"


def echo(request: Received) -> Reply:
    """Answer with a JSON description of the request."""
    document = {
        "method": request.method,
        "path": request.path,
        "headers": request.headers,
        "body": request.body.decode("latin-1"),
        "connection": request.connection,
    }
    return Reply(headers=[("content-type", "application/json")], body=json.dumps(document).encode())


class ThreadedListener:
    """A TCP listener on 127.0.0.1 serving each connection in a thread; stops on ``__exit__``."""

    scheme = "http"

    def __init__(self) -> None:
        self.connections = 0
        """How many TCP connections were accepted."""
        self.closed = 0
        """How many of them this side has closed."""
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self.url = f"{self.scheme}://127.0.0.1:{self.port}"
        self._stopping = threading.Event()
        self._lock = threading.Condition()
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> Self:
        self._spawn(self._accept_loop)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopping.set()
        _close(self._listener)  # shutdown() wakes the thread blocked in accept()
        with self._lock:
            for sock in self._sockets:
                _close(sock)
        for thread in self._threads:
            thread.join(timeout=5)

    def wait_closed(self, count: int, timeout: float = 5.0) -> None:
        """Block until this side has closed ``count`` connections."""
        with self._lock:
            if not self._lock.wait_for(lambda: self.closed >= count, timeout):
                raise TimeoutError(f"{self.closed} of {count} connections closed")

    def handle(self, sock: socket.socket, number: int) -> None:
        """Serve connection number ``number`` (closed afterwards)."""
        raise NotImplementedError

    def track(self, sock: socket.socket) -> None:
        """Close ``sock`` when the listener stops."""
        with self._lock:
            self._sockets.append(sock)

    def _spawn(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            self.track(sock)
            with self._lock:
                self.connections += 1
                number = self.connections
            self._spawn(self._handle_and_close, sock, number)

    def _handle_and_close(self, sock: socket.socket, number: int) -> None:
        try:
            self.handle(sock, number)
        except (OSError, h11.ProtocolError):
            pass
        finally:
            _close(sock)
            with self._lock:
                self.closed += 1
                self._lock.notify_all()


class ScriptedServer(ThreadedListener):
    """An HTTP/1.1 server (h11, keep-alive) whose answers come from ``routes[path]``."""

    def __init__(self, routes: Mapping[str, Handler], *, tls: ssl.SSLContext | None = None) -> None:
        self.scheme = "https" if tls else "http"
        super().__init__()
        self.routes = routes
        self.tls = tls
        self.received: list[Received] = []

    def handle(self, sock: socket.socket, number: int) -> None:
        if self.tls is not None:
            sock.settimeout(10)
            sock = self.tls.wrap_socket(sock, server_side=True)
            self.track(sock)
        self._serve_http(sock, number)

    def _serve_http(self, sock: socket.socket, number: int) -> None:
        connection = h11.Connection(h11.SERVER)
        index = 0
        while not self._stopping.is_set():
            request = _read_request(sock, connection)
            if request is None:
                return
            index += 1
            method, target, headers, body = request
            path = urlsplit(target).path if target.startswith("http") else target
            received = Received(method, path, headers, body, number, index)
            with self._lock:
                self.received.append(received)
            handler = self.routes.get(path.split("?")[0], _not_found)
            reply = handler(received)
            if reply.stall and self._stopping.wait(reply.stall):
                return
            if reply.close_without_answer:
                return
            if reply.raw is not None:
                sock.sendall(reply.raw)
                return
            self._answer(sock, connection, reply)
            if reply.close_after or connection.our_state is not h11.DONE:
                return
            if connection.their_state is not h11.DONE:
                return
            connection.start_next_cycle()

    def _answer(self, sock: socket.socket, connection: h11.Connection, reply: Reply) -> None:
        headers = list(reply.headers)
        if reply.chunks is None:
            headers.append(("content-length", str(len(reply.body))))
        sock.sendall(connection.send(h11.Response(status_code=reply.status, headers=headers)))
        for chunk in reply.chunks if reply.chunks is not None else [reply.body]:
            if chunk:
                sock.sendall(connection.send(h11.Data(data=chunk)))
            if reply.delay_between_chunks and self._stopping.wait(reply.delay_between_chunks):
                return
        sock.sendall(connection.send(h11.EndOfMessage()))


def _read_request(
    sock: socket.socket, connection: h11.Connection
) -> tuple[str, str, dict[str, str], bytes] | None:
    head: h11.Request | None = None
    body = b""
    while True:
        event = connection.next_event()
        if event is h11.NEED_DATA:
            connection.receive_data(sock.recv(65536))
        elif isinstance(event, h11.Request):
            head = event
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage) and head is not None:
            headers = {k.decode(): v.decode() for k, v in head.headers}
            return head.method.decode(), head.target.decode(), headers, body
        elif isinstance(event, h11.ConnectionClosed):
            return None


def _not_found(request: Received) -> Reply:
    return Reply(status=404, body=b"no such route")


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


class SilentServer(ThreadedListener):
    """Accepts connections and never says a word (a TLS handshake or a proxy stalls on it)."""

    def handle(self, sock: socket.socket, number: int) -> None:
        self._stopping.wait()


class TunnelProxy(ThreadedListener):
    """A forward proxy: ``CONNECT`` tunnels, and absolute-form requests relayed as they are.

    Records each request line it was asked for; with ``authorization`` it answers 407
    unless ``Proxy-Authorization`` has exactly that value.
    """

    def __init__(self, *, authorization: str | None = None) -> None:
        super().__init__()
        self.authorization = authorization
        self.requests: list[tuple[str, str, str | None]] = []

    def handle(self, sock: socket.socket, number: int) -> None:
        self._relay(sock)

    def _relay(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            data = client.recv(65536)
            if not data:
                return
            head += data
        request_line, *header_lines = head.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
        method, target, _ = request_line.split(" ")
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in header_lines)
        }
        credentials = headers.get("proxy-authorization")
        self.requests.append((method, target, credentials))
        if self.authorization is not None and credentials != self.authorization:
            client.sendall(DENIED)
            return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            upstream = socket.create_connection((host, int(port)))
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            parts = urlsplit(target)
            upstream = socket.create_connection((parts.hostname, parts.port or 80))
            upstream.sendall(head)
        self.track(upstream)
        self._spawn(_pipe, upstream, client)
        _pipe(client, upstream)


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        _close(sink)
        _close(source)


@dataclass
class Counter:
    """A thread-safe count, for handlers that act on the n-th call."""

    value: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self) -> int:
        """Add one and return the new value."""
        with self._lock:
            self.value += 1
            return self.value


def chunks_of(data: bytes, size: int) -> Iterator[bytes]:
    """``data`` in pieces of ``size`` bytes."""
    for start in range(0, len(data), size):
        yield data[start : start + size]
