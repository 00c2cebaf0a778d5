"""The HTTP client's one family of exceptions.

The driver turns any of them into :class:`sansio_auth.events.Failed`; the
engine then ends the flow on the error page.
"""

from __future__ import annotations

from sansio_auth.errors import ProviderUnreachable


class HTTPError(ProviderUnreachable):
    """Sending a request failed (no usable response); ``url`` is the request's URL."""

    def __init__(self, message: str, *, url: str = "") -> None:
        super().__init__(f"{message} ({url})" if url else message)
        self.url = url


class ConnectError(HTTPError):
    """The connection could not be opened (refused, unreachable, name not resolved)."""


class TLSError(ConnectError):
    """The TLS handshake failed (untrusted certificate, wrong host name, protocol error)."""


class ProxyError(ConnectError):
    """The proxy refused the tunnel, or the proxy URL is not supported."""


class NetworkError(HTTPError):
    """The connection broke while the request or response was in flight."""


class ProtocolError(HTTPError):
    """The server did not speak valid HTTP/1.1 (or closed before a complete response)."""


class ResponseTooLarge(HTTPError):
    """The response body is larger than the client's ``max_response_size``."""


class HTTPTimeout(HTTPError, TimeoutError):
    """A timeout expired (also a built-in :class:`TimeoutError`)."""


class ConnectTimeout(HTTPTimeout):
    """Opening the connection (TCP, proxy tunnel and TLS handshake) took too long."""


class WriteTimeout(HTTPTimeout):
    """Sending the request took too long."""


class ReadTimeout(HTTPTimeout):
    """The server sent nothing for longer than the read timeout."""


class TotalTimeout(HTTPTimeout):
    """The whole exchange, retries included, took longer than the total timeout."""


class InvalidRequest(HTTPError):
    """The request cannot be sent as given (unsupported URL scheme, bad host, bad header)."""
