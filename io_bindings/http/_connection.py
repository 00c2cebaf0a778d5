"""One HTTP/1.1 connection: h11 over a :class:`NetworkStream`."""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterable

import h11
import msgspec

from ._backend import NetworkBackend, NetworkStream
from ._errors import NetworkError, ProtocolError, ReadTimeout, ResponseTooLarge, WriteTimeout

READ_SIZE = 64 * 1024
MAX_HEADER_BYTES = 64 * 1024


class Timeouts(msgspec.Struct, frozen=True, kw_only=True):
    """Seconds allowed: to open a connection (TCP + proxy tunnel + TLS), between two reads,
    for one write, and for the whole exchange (retries included)."""

    connect: float = 5.0
    read: float = 10.0
    write: float = 10.0
    total: float = 15.0


class RawResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A response as it came off the wire (header names lower-case, body decoded)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


class Connection:
    """An HTTP/1.1 connection to one origin (or to a proxy), used one request at a time."""

    def __init__(self, stream: NetworkStream, backend: NetworkBackend, timeouts: Timeouts) -> None:
        self._stream = stream
        self._backend = backend
        self._timeouts = timeouts
        self._h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEADER_BYTES)
        self.completed = 0
        """How many exchanges finished on this connection (so ``> 0`` means it is reused)."""
        self.response_started = False
        """Whether any byte of the current response arrived (a retry is unsafe after that)."""
        self.idle_since = time.monotonic()

    async def exchange(
        self, request: h11.Request, body: bytes, *, max_size: int, url: str
    ) -> RawResponse:
        """Send ``request`` with ``body``; the response, its body at most ``max_size`` bytes."""
        self.response_started = False
        data = self._h11.send(request) or b""
        if body:
            data += self._h11.send(h11.Data(data=body)) or b""
        data += self._h11.send(h11.EndOfMessage()) or b""
        await self._send(data, url)
        response = await self._read_head(url)
        length = _content_length(response.headers)
        if length is not None and length > max_size:
            raise ResponseTooLarge(
                f"the response declares {length} bytes, over the {max_size}-byte limit", url=url
            )
        chunks: list[bytes] = []
        size = 0
        while True:
            event = await self._next_event(url)
            if isinstance(event, h11.Data):
                size += len(event.data)
                if size > max_size:
                    raise ResponseTooLarge(
                        f"the response body exceeds the {max_size}-byte limit", url=url
                    )
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                break
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers]
        body = _decode(headers, b"".join(chunks), max_size, url)
        self.completed += 1
        return RawResponse(status=response.status_code, headers=headers, body=body)

    def ready_for_reuse(self) -> bool:
        """Whether both sides finished cleanly and kept the connection open (then reset it)."""
        if self._h11.our_state is h11.DONE and self._h11.their_state is h11.DONE:
            self._h11.start_next_cycle()
            self.idle_since = time.monotonic()
            return True
        return False

    def is_stale(self, expiry: float) -> bool:
        """Whether this idle connection is too old, or the server closed or wrote to it."""
        return time.monotonic() - self.idle_since > expiry or self._stream.is_readable()

    async def aclose(self) -> None:
        """Close the connection at once."""
        await self._stream.aclose()

    async def _send(self, data: bytes, url: str) -> None:
        try:
            async with self._backend.fail_after(self._timeouts.write):
                await self._stream.send(data)
        except TimeoutError as err:
            raise WriteTimeout(f"sending took over {self._timeouts.write}s", url=url) from err
        except OSError as err:
            raise NetworkError(f"connection lost while sending: {err}", url=url) from err

    async def _read_head(self, url: str) -> h11.Response:
        while True:
            event = await self._next_event(url)
            if isinstance(event, h11.Response):
                return event

    async def _next_event(self, url: str) -> h11.Event:
        while True:
            try:
                event = self._h11.next_event()
            except h11.RemoteProtocolError as err:
                raise ProtocolError(f"invalid HTTP response: {err}", url=url) from err
            if event is h11.NEED_DATA:
                self._h11.receive_data(await self._receive(url))
            elif isinstance(event, h11.ConnectionClosed):
                raise ProtocolError("the server closed the connection without a response", url=url)
            else:
                assert isinstance(event, h11.Event)
                return event

    async def _receive(self, url: str) -> bytes:
        try:
            async with self._backend.fail_after(self._timeouts.read):
                data = await self._stream.receive(READ_SIZE)
        except TimeoutError as err:
            message = f"no data from the server for {self._timeouts.read}s"
            raise ReadTimeout(message, url=url) from err
        except OSError as err:
            raise NetworkError(f"connection lost while receiving: {err}", url=url) from err
        if data:
            self.response_started = True
        return data


def _content_length(headers: Iterable[tuple[bytes, bytes]]) -> int | None:
    for name, value in headers:
        if name == b"content-length" and value.isdigit():
            return int(value)
    return None


def _decode(headers: list[tuple[str, str]], body: bytes, max_size: int, url: str) -> bytes:
    """Undo a ``gzip``/``deflate`` content coding, refusing output over ``max_size`` bytes."""
    coding = next((v.strip().lower() for k, v in headers if k == "content-encoding"), "identity")
    if coding in ("identity", "") or not body:
        return body
    if coding not in ("gzip", "x-gzip", "deflate"):
        raise ProtocolError(f"unsupported content-encoding {coding!r}", url=url)
    wbits = 47 if coding != "deflate" else (15 if body[:1] == b"\x78" else -15)
    decompressor = zlib.decompressobj(wbits)
    try:
        decoded = decompressor.decompress(body, max_size + 1)
    except zlib.error as err:
        raise ProtocolError(f"invalid {coding} body: {err}", url=url) from err
    if len(decoded) > max_size:
        raise ResponseTooLarge(f"the decoded body exceeds the {max_size}-byte limit", url=url)
    return decoded
