"""Coverage-guided fuzz targets: each takes raw bytes and allows only handled outcomes.

A target returns normally when the input was handled (a parsed value, or the parser's
documented error); any other exception is a finding. ``python -m fuzz.run`` runs them
under atheris (libFuzzer) from the seed corpora in ``fuzz/corpus/<target>/``; the CI pass
(``fuzz/test_atheris_targets.py``) replays the seeds and runs each target briefly.

The engine target reads an HTTP-like request (``METHOD /path?query``, header lines, a
blank line, the body); with the first input byte odd it also sends a valid session cookie.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from io_bindings.translate import HeaderLimits
from sansio_auth import AuthConfig, Engine, NotAnAuthRoute, Request, Response
from sansio_auth import jwt as jose
from sansio_auth._context import BadRequest, Context
from sansio_auth.cookies import read_chunked
from sansio_auth.drivers import sync_performer
from sansio_auth.errors import ProviderError
from sansio_auth.http import parse_cookie_header, parse_params, split_url
from sansio_auth.oauth.cache import ProviderCache
from sansio_auth.oauth.callback import parse_authorization_response
from sansio_auth.oauth.discovery import parse_jwks, parse_metadata, same_issuer
from sansio_auth.oauth.tokens import parse_token_response
from sansio_auth.providers import Credentials
from sansio_auth.ratelimit import client_address, client_network
from sansio_auth.session_token import bearer_token

SECRET = "fuzz-secret-0123456789abcdef0123456789abcdef"
SALT = "authjs.session-token"
NOW = 1_800_000_000.0
ORIGIN = "http://localhost:3000"
ISSUER = "https://op.example"


def _entropy(n: int) -> bytes:
    return bytes(range(n % 256))[:n].ljust(n, b"\x01")


def cookie_header(data: bytes) -> None:
    """The ``Cookie`` header parser and chunked session reassembly never raise."""
    cookies = parse_cookie_header(data.decode("latin-1"))
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in cookies.items())
    value, names = read_chunked(cookies, SALT)
    assert value is None or isinstance(value, str)
    assert set(names) <= set(cookies)


def jwe_decode(data: bytes) -> None:
    """Session JWE decoding: claims, or :class:`~sansio_auth.jwt.InvalidToken`."""
    try:
        claims = jose.decode(data.decode("latin-1"), SECRET, SALT, now=NOW)
    except jose.InvalidToken:
        return
    assert isinstance(claims, dict)


@cache
def _settings() -> Any:
    return Engine(_config(), clock=lambda: NOW, entropy=_entropy).settings


def form_query(data: bytes) -> None:
    """Query and body parsing: values, or ``BadRequest`` (a 400) for a bad body."""
    head, _, body = data.partition(b"\n")
    json_body = head.startswith(b"{")
    url = f"{ORIGIN}/auth/callback/credentials?{head.decode('latin-1')}"
    try:
        _, _, query = split_url(url)
    except ValueError:
        return
    assert all(isinstance(v, str) for v in query.values())
    _check_repeated(query, urlsplit(url).query)
    content_type = "application/json" if json_body else "application/x-www-form-urlencoded"
    request = Request(method="POST", url=url, headers={"content-type": content_type}, body=body)
    ctx = Context(
        _settings(),
        request,
        cache=ProviderCache(),
        now=NOW,
        entropy=_entropy,
        origin=ORIGIN,
        action="callback",
        provider_id="credentials",
        query=query,
    )
    try:
        form = ctx.form
    except BadRequest:
        return
    assert isinstance(form, dict)
    if body and not json_body:
        _check_repeated(form, body.decode("utf-8"))


def _check_repeated(params: Any, text: str) -> None:
    """The parsed parameters name exactly the names the text repeats (RFC 6749 §3.1)."""
    counts = Counter(name for name, _ in parse_qsl(text, keep_blank_values=True))
    assert params.repeated == {name for name, count in counts.items() if count > 1}
    assert set(params) == set(counts)


def authorization_response(data: bytes) -> None:
    """The authorization response (callback query), repetitions kept: a code, or a
    ``ProviderError``; never a code when a parameter came twice or a JARM ``response``."""
    params = parse_params(data.decode("latin-1"))
    try:
        code = parse_authorization_response(
            params,
            expected_state=params.get("expected", "s"),
            issuer=ISSUER,
            iss_required=False,
            repeated=params.repeated,
        )
    except ProviderError:
        return
    assert code.code
    assert not params.repeated
    assert "response" not in params


def header_limits(data: bytes) -> None:
    """The bindings' header limits: header lines (``name: value``) are allowed exactly when
    there are at most 100 of them and 64 KiB in all, whatever bytes they hold."""
    limits = HeaderLimits()
    pairs = [line.partition(b":")[::2] for line in data.split(b"\n") if line]
    expected = len(pairs) <= limits.max_count and (
        sum(len(name) + len(value) for name, value in pairs) <= limits.max_size
    )
    assert limits.allow(pairs) is expected
    small = HeaderLimits(max_size=64, max_count=2)
    assert small.allow(pairs) is (len(pairs) <= 2 and sum(len(n) + len(v) for n, v in pairs) <= 64)


def token_response(data: bytes) -> None:
    """The token endpoint's answer: a token set, or ``TokenResponseError``."""
    status = 200 if not data or data[0] % 8 else 400
    try:
        parse_token_response(status, data[1:], now=NOW)
    except ProviderError:
        return


def jwks(data: bytes) -> None:
    """A JWKS document: its keys, or ``ProviderResponseError``."""
    try:
        keys = parse_jwks(data)
    except ProviderError:
        return
    assert all(isinstance(k, dict) for k in keys)


def discovery(data: bytes) -> None:
    """A discovery document: metadata for the expected issuer, or ``ProviderResponseError``."""
    try:
        metadata = parse_metadata(data, ISSUER)
    except ProviderError:
        return
    assert same_issuer(metadata.issuer, ISSUER)


def _authorize(credentials: dict[str, Any]) -> dict[str, str] | None:
    if credentials.get("username") == "ann" and credentials.get("password") == "pw":
        return {"id": "1", "name": "Ann", "email": "ann@example.com"}
    return None


def _config() -> AuthConfig:
    return AuthConfig(secret=SECRET, trust_host=True, providers=[Credentials(authorize=_authorize)])


@cache
def _engine() -> Engine:
    return Engine(_config(), clock=lambda: NOW, entropy=_entropy, env={})


_perform = sync_performer(log=lambda entry: None)


@cache
def _session_cookie() -> str:
    """A valid session cookie (a credentials sign-in, made once)."""
    engine = _engine()
    csrf = engine.handle(Request(method="GET", url=f"{ORIGIN}/auth/csrf"))
    assert not isinstance(csrf, NotAnAuthRoute)
    answer = csrf.run_sync(_perform)
    cookie = "; ".join(c.header_value().split(";")[0] for c in answer.cookies)
    token = answer.json()["csrfToken"]
    body = f"csrfToken={token}&username=ann&password=pw".encode()
    headers = {"cookie": cookie, "content-type": "application/x-www-form-urlencoded"}
    url = f"{ORIGIN}/auth/callback/credentials"
    flow = engine.handle(Request(method="POST", url=url, headers=headers, body=body))
    assert not isinstance(flow, NotAnAuthRoute)
    signed_in = flow.run_sync(_perform)
    [session] = [c for c in signed_in.cookies if c.name == SALT]
    return session.header_value().split(";")[0]


def parse_request(data: bytes) -> Request:
    """An HTTP-like text (request line, headers, blank line, body) as a :class:`Request`."""
    head, _, body = data.partition(b"\n\n")
    lines = head.decode("latin-1").split("\n")
    method, _, target = lines[0].partition(" ")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Request(method=method or "GET", url=ORIGIN + target, headers=headers, body=body)


def engine(data: bytes) -> None:
    """Any request: the engine answers with a well-formed :class:`Response`, never raises."""
    if not data:
        return
    request = parse_request(data[1:])
    if data[0] % 2:
        cookie = request.headers.get("cookie")
        jar = _session_cookie() + (f"; {cookie}" if cookie else "")
        headers = {**request.headers, "cookie": jar}
        request = Request(
            method=request.method, url=request.url, headers=headers, body=request.body
        )
    flow = _engine().handle(request)
    if isinstance(flow, NotAnAuthRoute):
        return
    response = flow.run_sync(_perform)
    assert isinstance(response, Response)
    assert 200 <= response.status < 600
    response.header_list()  # every header and cookie renders


def request_identity(data: bytes) -> None:
    """What an API request says about itself: the bearer token (``getToken``) and the client
    address behind proxies (the rate limits) never raise and are what they claim."""
    authorization, _, forwarded = data.decode("latin-1").partition("\n")
    token = bearer_token(authorization)
    assert token is None or (isinstance(token, str) and token)
    request = Request(
        method="GET", url=ORIGIN, headers={"x-forwarded-for": forwarded}, client=authorization
    )
    for hops in (0, 1, 2):
        address = client_address(request, hops)
        if address is not None:
            assert ipaddress.ip_address(address)
            assert client_network(address)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "cookie_header": cookie_header,
    "jwe_decode": jwe_decode,
    "form_query": form_query,
    "authorization_response": authorization_response,
    "token_response": token_response,
    "jwks": jwks,
    "discovery": discovery,
    "header_limits": header_limits,
    "engine": engine,
    "request_identity": request_identity,
}
