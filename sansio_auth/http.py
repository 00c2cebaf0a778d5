"""HTTP values: the incoming :class:`Request`, the final :class:`Response` and its cookies.

All are frozen records; the engine reads them and makes new ones, it never does IO.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import parse_qsl, quote, unquote, unquote_to_bytes, urlsplit

import msgspec

SameSite = Literal["lax", "strict", "none"]


class Request(msgspec.Struct, frozen=True, kw_only=True):
    """An incoming HTTP request, as a framework adapter hands it to the engine.

    ``url`` is absolute (``scheme://host[:port]/path?query``); ``headers`` has
    lower-case names (see :func:`headers_from_pairs`); ``body`` is the raw body;
    ``client`` is the address of the peer the server saw (ASGI ``scope["client"]``,
    WSGI ``REMOTE_ADDR``), ``None`` when unknown: rate limits per client use it.
    ``language`` is the framework's active language (Django's ``get_language()``), when the
    adapter passes it: the built-in pages then use it rather than ``Accept-Language``.
    """

    method: str
    url: str
    headers: Mapping[str, str] = msgspec.field(default_factory=dict)
    body: bytes = b""
    client: str | None = None
    language: str | None = None

    def header(self, name: str) -> str | None:
        """The value of header ``name`` (lower case), or ``None``."""
        return self.headers.get(name)


def headers_from_pairs(pairs: Iterable[tuple[str | bytes, str | bytes]]) -> dict[str, str]:
    """Fold raw header pairs into a lower-case mapping (repeated ``cookie`` joined with ``; ``)."""
    if isinstance(pairs, list | tuple):
        names = _HEADER_NAMES
        try:  # every request: names seen before, bytes values, none repeated, at C speed
            quick = {names[name]: value.decode("latin-1") for name, value in pairs}
        except (KeyError, AttributeError):
            pass
        else:
            if len(quick) == len(pairs):
                return quick
    return _folded(pairs)


def _folded(pairs: Iterable[tuple[str | bytes, str | bytes]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for raw_name, raw_value in pairs:
        name = _HEADER_NAMES.get(raw_name) or _header_name(raw_name)
        value = raw_value.decode("latin-1") if isinstance(raw_value, bytes) else raw_value
        if name in out:
            out[name] += ("; " if name == "cookie" else ", ") + value
        else:
            out[name] = value
    return out


_HEADER_NAMES: dict[str | bytes, str] = {}
"""Header names as received, lower-cased: a server sees the same few on every request."""


def _header_name(raw: str | bytes) -> str:
    name = (raw.decode("latin-1") if isinstance(raw, bytes) else raw).lower()
    if len(raw) <= 64 and len(_HEADER_NAMES) < 512:  # bounded: made-up names are not all kept
        _HEADER_NAMES[raw] = name
    return name


class CookieOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Attributes of a ``Set-Cookie`` header (``expires`` is a Unix timestamp)."""

    path: str = "/"
    domain: str | None = None
    http_only: bool = True
    secure: bool = False
    same_site: SameSite = "lax"
    max_age: int | None = None
    expires: float | None = None
    partitioned: bool = False


class Cookie(msgspec.Struct, frozen=True, kw_only=True):
    """One ``Set-Cookie`` instruction. An empty value with ``max_age=0`` deletes."""

    name: str
    value: str
    options: CookieOptions = CookieOptions()

    def header_value(self) -> str:
        """Serialise as Auth.js does (same attribute order, ``encodeURIComponent`` value)."""
        o = self.options
        expires = None if o.expires is None else int(o.expires)
        attributes = _cookie_attributes(
            o.max_age, o.domain, o.path, expires, o.http_only, o.secure, o.partitioned, o.same_site
        )
        return f"{self.name}={encode_uri_component(self.value)}; {attributes}"


@lru_cache(maxsize=256)
def _cookie_attributes(
    max_age: int | None,
    domain: str | None,
    path: str,
    expires: int | None,
    http_only: bool,
    secure: bool,
    partitioned: bool,
    same_site: str,
) -> str:
    """A ``Set-Cookie`` line's attributes, in Auth.js's order. Memoised: a server sets a few
    kinds of cookie, and those that expire, issued within one second, expire alike."""
    parts = [] if max_age is None else [f"Max-Age={max_age}"]
    if domain:
        parts.append(f"Domain={domain}")
    if path:
        parts.append(f"Path={path}")
    if expires is not None:
        parts.append(f"Expires={http_date(expires)}")
    if http_only:
        parts.append("HttpOnly")
    if secure:
        parts.append("Secure")
    if partitioned:
        parts.append("Partitioned")
    parts.append(f"SameSite={same_site.capitalize()}")
    return "; ".join(parts)


def encode_uri_component(value: str) -> str:
    """JavaScript's ``encodeURIComponent``: every character but ``A-Z a-z 0-9 - _ . ! ~ * '
    ( )`` as the percent-escapes of its UTF-8 bytes."""
    if value.isascii() and not value.encode("ascii").translate(None, _UNRESERVED):
        return value  # the common case (a token): nothing to escape, found by a C-speed scan
    return _URI_COMPONENT_ESCAPED.sub(_percent_escape, value)


def decode_uri_component(value: str) -> str:
    """JavaScript's ``decodeURIComponent``: percent-escapes of UTF-8 bytes decoded (``+``
    stays ``+``); :class:`ValueError` for a malformed escape or bytes that are not UTF-8."""
    if "%" not in value:
        return value
    if _MALFORMED_ESCAPE.search(value):
        raise ValueError("a malformed percent-escape")
    try:
        return unquote(value, errors="strict")
    except UnicodeDecodeError as err:
        raise ValueError("percent-escapes that are not UTF-8") from err


_MALFORMED_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _percent_escape(match: re.Match[str]) -> str:
    return _percent_escaped(match.group())


@lru_cache(maxsize=1024)
def _percent_escaped(char: str) -> str:
    return quote(char, safe="")


_UNRESERVED = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()"
_URI_COMPONENT_ESCAPED = re.compile(r"[^A-Za-z0-9\-_.!~*'()]")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def http_date(timestamp: float) -> str:
    """RFC 1123 date in GMT, e.g. ``Tue, 22 Dec 2026 12:50:10 GMT`` (in English, whatever
    the locale)."""
    return _http_date(int(timestamp))


@lru_cache(maxsize=256)
def _http_date(seconds: int) -> str:
    """Memoised: the cookies issued within one second all expire at the same second."""
    d = datetime.fromtimestamp(seconds, UTC)
    return (
        f"{_DAYS[d.weekday()]}, {d.day:02d} {_MONTHS[d.month - 1]} {d.year:04d} "
        f"{d.hour:02d}:{d.minute:02d}:{d.second:02d} GMT"
    )


@lru_cache(maxsize=256)
def iso_date(timestamp: float) -> str:
    """ISO 8601 with milliseconds and ``Z``, as JavaScript's ``Date.toISOString``.

    Memoised: a session's expiry is the same on every read until its cookie is re-issued."""
    moment = datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="milliseconds").removesuffix("+00:00") + "Z"


def parse_cookie_header(header: str | None, only: str | None = None) -> dict[str, str]:
    """Parse a ``Cookie`` header: first occurrence of a name wins, ``%`` values decoded (kept
    as they are when the escapes are not UTF-8). ``only``: the cookies whose name starts
    with it, the others skipped undecoded (a browser sends a site's every cookie)."""
    cookies: dict[str, str] = {}
    if not header:
        return cookies
    for item in header.split(";") if only is None else _items_named(header, only):
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name or name in cookies:
            continue
        value = value.strip()
        if len(value) > 1 and value[0] == value[-1] == '"':
            value = value[1:-1]
        if "%" in value:
            value = _percent_decoded(value)
        cookies[name] = value
    return cookies


def _items_named(header: str, prefix: str) -> list[str]:
    """The items of ``header`` (split at ``;``) whose name starts with ``prefix``, found by
    searching for it: no copy of the others (a session read skips a site's other cookies)."""
    items = []
    start = header.find(prefix)
    while start != -1:
        begin = header.rfind(";", 0, start) + 1
        end = header.find(";", start)
        if end == -1:
            end = len(header)
        if not header[begin:start].strip():  # else ``prefix`` is inside another item
            items.append(header[begin:end])
        start = header.find(prefix, end)
    return items


def _percent_decoded(value: str) -> str:
    """``value`` with its percent-escapes decoded as UTF-8 (the whole value at once, as
    ``unquote`` would decode it), or as it is when they are not UTF-8."""
    try:
        return unquote_to_bytes(value).decode()
    except UnicodeError:
        return value


class Page(msgspec.Struct, frozen=True):
    """A built-in page as data: its ``name`` (``"signin"``, ``"error"``, ...) and the
    ``context`` its HTML was drawn from, the plain values it shows (URLs, the CSRF token, an
    error code, the providers, ...). The names and their context keys are listed in
    ``docs/reference/pages.md``; an adapter may render a template of its own from them."""

    name: str
    context: Mapping[str, Any]


class Response(msgspec.Struct, frozen=True, kw_only=True):
    """The engine's final answer: status, headers (without ``Set-Cookie``), cookies, body;
    an answer showing a built-in page also carries it as data (:attr:`page`)."""

    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    cookies: tuple[Cookie, ...] = ()
    body: bytes = b""
    page: Page | None = None
    """The built-in page whose HTML :attr:`body` is, as data (``None`` for other answers)."""

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (case-insensitive), or ``None``."""
        lowered = name.lower()
        return next((v for k, v in self.headers if k.lower() == lowered), None)

    @property
    def location(self) -> str | None:
        """The redirect target, if this is a redirect."""
        return self.header("location")

    def set_cookie_headers(self) -> list[str]:
        """The ``Set-Cookie`` header values of :attr:`cookies`, in order."""
        return [cookie.header_value() for cookie in self.cookies]

    def header_list(self) -> list[tuple[str, str]]:
        """All headers, ``Set-Cookie`` lines included, ready for a server."""
        return [*self.headers, *(("set-cookie", c.header_value()) for c in self.cookies)]

    def json(self) -> Any:
        """The body decoded as JSON."""
        return msgspec.json.decode(self.body)


class Params(dict[str, str]):
    """Form-encoded parameters (a query string, a form body): the last value of each name,
    and in :attr:`repeated` the names that came more than once (which OAuth refuses)."""

    __slots__ = ("repeated",)

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        self.repeated: frozenset[str] = _NONE_REPEATED
        if not pairs:
            return
        pairs = list(pairs)
        super().__init__(pairs)
        if len(pairs) != len(self):
            counts = Counter(name for name, _ in pairs)
            self.repeated = frozenset(name for name, count in counts.items() if count > 1)


_NONE_REPEATED: frozenset[str] = frozenset()


def parse_params(text: str) -> Params:
    """:class:`Params` of ``application/x-www-form-urlencoded`` ``text``."""
    return Params(parse_qsl(text, keep_blank_values=True)) if text else Params()


def repeated_params(params: Mapping[str, Any]) -> frozenset[str]:
    """The names repeated in ``params`` (none unless it is :class:`Params`)."""
    return params.repeated if isinstance(params, Params) else frozenset()


def split_url(url: str) -> tuple[str, str, Params]:
    """``(origin, path, query)`` of an absolute URL (:func:`origin_and_path`, :func:`url_query`)."""
    return (*origin_and_path(url), url_query(url))


def origin_and_path(url: str) -> tuple[str, str]:
    """The origin (lower case) and the path of an absolute URL.

    Memoised for URLs without a query: a server sees the same few (a session read's above
    all); URLs with a query, which may carry a provider's code, are never kept."""
    return _memoised_origin_and_path(url) if "?" not in url else _origin_and_path(url)


def url_query(url: str) -> Params:
    """The query of an absolute URL; duplicate keys: last wins (and are listed in the
    query's ``repeated``)."""
    return parse_params(urlsplit(url).query) if "?" in url else Params()


def _origin_and_path(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower(), parts.path or "/"


_memoised_origin_and_path = lru_cache(maxsize=256)(_origin_and_path)


def same_origin(url: str, origin: str) -> bool:
    """Whether absolute ``url`` has exactly ``origin`` (scheme, host and port).

    URLs with a backslash or user info are never same-origin: browsers read
    ``http://evil.com\\@host/`` as ``evil.com``, Python's parser as ``host``.
    """
    if "\\" in url:
        return False
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return False
    default = 443 if parts.scheme == "https" else 80
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = host if port in (None, default) else f"{host}:{port}"
    return f"{parts.scheme}://{netloc}".lower() == origin
