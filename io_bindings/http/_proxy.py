"""Proxies from the environment: ``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``, ``NO_PROXY``.

Lower-case names win over upper-case ones (as curl does); ``HTTP_PROXY`` is
ignored when ``REQUEST_METHOD`` is set (CGI's "httpoxy" hole). Proxies are
``http://[user:password@]host[:port]``; ``https`` URLs go through a ``CONNECT``
tunnel. Proxies spoken to over TLS and SOCKS proxies are not supported
(:class:`ProxyError`).
"""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Mapping
from urllib.parse import unquote, urlsplit

import h11
import msgspec

from ._backend import NetworkStream
from ._errors import ProxyError


class Proxy(msgspec.Struct, frozen=True, kw_only=True):
    """An HTTP proxy: where it listens and the ``Proxy-Authorization`` value, if any."""

    host: str
    port: int
    authorization: str | None = None

    @classmethod
    def from_url(cls, url: str) -> Proxy:
        """Parse ``http://[user:password@]host[:port]`` (a bare ``host:port`` means http)."""
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme != "http" or not parts.hostname:
            raise ProxyError(f"unsupported proxy URL {_redacted(url)!r} (only http:// proxies)")
        try:
            port = parts.port or 80
        except ValueError as err:
            raise ProxyError(f"invalid proxy port in {_redacted(url)!r}") from err
        authorization = None
        if parts.username is not None:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            authorization = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        return cls(host=parts.hostname, port=port, authorization=authorization)


class ProxySettings:
    """Which proxy, if any, a request to ``scheme://host:port`` goes through."""

    def __init__(self, env: Mapping[str, str]) -> None:
        def lookup(name: str) -> str:
            return (env.get(name.lower()) or env.get(name.upper()) or "").strip()

        http = env.get("http_proxy", "").strip()
        if not http and "REQUEST_METHOD" not in env:
            http = env.get("HTTP_PROXY", "").strip()
        fallback = lookup("all_proxy")
        self._urls = {"http": http or fallback, "https": lookup("https_proxy") or fallback}
        self._no_proxy = [entry for entry in lookup("no_proxy").replace(",", " ").split() if entry]

    def proxy_for(self, scheme: str, host: str, port: int) -> Proxy | None:
        """The proxy for this origin, or ``None`` to connect directly."""
        url = self._urls.get(scheme, "")
        if not url or any(_bypasses(entry, host, port) for entry in self._no_proxy):
            return None
        return Proxy.from_url(url)


def _bypasses(entry: str, host: str, port: int) -> bool:
    """Whether ``NO_PROXY`` entry ``entry`` covers ``host``:``port``."""
    if entry == "*":
        return True
    entry = entry.lower()
    host = host.lower().strip("[]")
    if entry.startswith("[") and "]" in entry:  # [v6]:port
        bracketed, _, rest = entry[1:].partition("]")
        entry, entry_port = bracketed, rest.lstrip(":")
    elif entry.count(":") == 1:
        entry, entry_port = entry.split(":")
    else:
        entry_port = ""
    if entry_port and entry_port != str(port):
        return False
    try:
        network = ipaddress.ip_network(entry, strict=False)
    except ValueError:
        domain = entry.removeprefix("*").lstrip(".")
        return host == domain or host.endswith("." + domain)
    try:
        return ipaddress.ip_address(host) in network
    except ValueError:
        return False


async def open_tunnel(stream: NetworkStream, proxy: Proxy, host: str, port: int) -> None:
    """Ask the proxy on ``stream`` for a ``CONNECT`` tunnel to ``host``:``port``."""
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    headers = [("Host", authority)]
    if proxy.authorization:
        headers.append(("Proxy-Authorization", proxy.authorization))
    connection = h11.Connection(h11.CLIENT)
    await stream.send(
        connection.send(h11.Request(method="CONNECT", target=authority, headers=headers))
        + (connection.send(h11.EndOfMessage()) or b"")
    )
    while True:
        try:
            event = connection.next_event()
        except h11.RemoteProtocolError as err:
            raise ProxyError(f"invalid answer from the proxy: {err}") from err
        if event is h11.NEED_DATA:
            connection.receive_data(await stream.receive(16 * 1024))
        elif isinstance(event, h11.Response):
            if not 200 <= event.status_code < 300:
                raise ProxyError(f"the proxy refused the tunnel with status {event.status_code}")
            return
        elif isinstance(event, h11.ConnectionClosed):
            raise ProxyError("the proxy closed the connection")


def _redacted(url: str) -> str:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@")
