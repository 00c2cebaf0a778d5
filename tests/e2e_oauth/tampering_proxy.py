"""A tampering reverse proxy between the app and the real OpenID Provider.

The real OP signs only honest ID tokens, so the attacks are forged here: the app's
``tamper`` providers have the proxy's URL as their issuer, and the proxy (a real ASGI
server on 127.0.0.1, uvicorn in a thread of the test process) serves:

* the discovery document: the OP's, with ``issuer`` and every endpoint moved to the
  proxy except the authorization endpoint (the browser still visits the real OP);
* the token endpoint: the OP's answer with its ID token re-signed by the OP's own key
  with ``iss`` set to the proxy's URL — what the OP would sign if it lived here;
* everything else (JWKS, userinfo) forwarded as it is.

That is the honest baseline (the control tests sign in through it). A test changes one
thing by setting :attr:`TamperingProxy.tamper`: some ID token claims, how the ID token
is signed, the token response's members, the userinfo claims, or a fault of the token
endpoint.

Two *variants* live under a path prefix each, with their own discovery document (a
provider names it as its ``well_known``), so that the app's caches never mix them with
the baseline: ``/pkce-plain`` advertises only the ``plain`` PKCE method, and
``/small-key`` publishes a single 1024-bit RSA key and signs its ID tokens with it.

The OP puts its own ``iss`` in the authorization response (RFC 9207); a test's browser
going through the proxy puts the proxy's URL there instead (the one thing the proxy cannot
rewrite, as the response travels through the browser).
"""

from __future__ import annotations

import base64
import hmac
import json
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

import anyio
import httpx
import uvicorn
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from joserfc import jws
from joserfc.jwk import RSAKey
from live_server import free_port

from tests.oidc_op.provider import OpenIDProvider

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

Signing = Literal["op-key", "foreign-key", "unknown-kid", "alg-none", "hs256-public-key"]
TokenFault = Literal["500", "stall", "huge", "invalid-json"]
DISCOVERY_PATH = "/.well-known/openid-configuration"
VARIANTS = ("pkce-plain", "small-key")
SMALL_KID = "small-key"
HUGE_BODY = 2 * 1024 * 1024
"""Twice the app's HTTP client cap (1 MiB), streamed without a ``Content-Length``."""
STALL_LIMIT = 10.0
"""A stalled answer waits for the client to hang up, at most this long."""


@dataclass(frozen=True)
class Tamper:
    """What the proxy changes; the default changes nothing beyond the honest baseline."""

    id_token_claims: Mapping[str, Any] = field(default_factory=dict)
    """Merged into the ID token's claims (``None`` removes a claim)."""
    signing: Signing = "op-key"
    """``op-key``: the OP's key and ``kid``; ``foreign-key``: another RSA key under the OP's
    ``kid``; ``unknown-kid``: another key and ``kid``; ``alg-none``: unsigned;
    ``hs256-public-key``: HMAC-SHA-256 keyed with the OP's public key (PEM)."""
    userinfo_claims: Mapping[str, Any] = field(default_factory=dict)
    """Merged into the userinfo answer."""
    token_response: Mapping[str, Any] = field(default_factory=dict)
    """Set in the token response as given (``None`` is JSON ``null``)."""
    token_fault: TokenFault | None = None
    """The token endpoint answers ``500``, never (``stall``), too much (``huge``) or
    ``invalid-json``, without asking the OP."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for name, value in changes.items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return merged


class TamperingProxy:
    """The ASGI app; :attr:`url` is set once it is served (:func:`serve_proxy`)."""

    def __init__(self, op: OpenIDProvider) -> None:
        self.op = op
        self.url = ""
        self.tamper = Tamper()
        self.hits: Counter[str] = Counter()
        """Requests per path, as the app sent them."""
        self.op_key = RSAKey.import_key(op.signing_key)
        self.foreign_key = RSAKey.generate_key(2048, parameters={"use": "sig"})
        self._client: httpx.AsyncClient | None = None

    # -- ASGI -------------------------------------------------------------------------------

    async def __call__(self, scope: Message, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        self.hits[scope["path"]] += 1
        variant, path = _variant(scope["path"])
        body = await _read_body(receive)
        tamper = self.tamper
        if path == DISCOVERY_PATH:
            status, headers, content = await self._forward(scope, body, path)
            content = json.dumps(self._discovery(json.loads(content), variant)).encode()
        elif path == "/token" and tamper.token_fault is not None:
            await self._fault(tamper.token_fault, receive, send)
            return
        elif variant == "small-key" and path == "/jwks":
            status, headers = 200, httpx.Headers({"content-type": "application/json"})
            content = json.dumps({"keys": [small_key_jwk()]}).encode()
        else:
            status, headers, content = await self._forward(scope, body, path)
            if path == "/token" and status == 200:
                signing: Signing | Literal["small-key"] = tamper.signing
                if variant == "small-key":
                    signing = "small-key"
                tokens = self._tokens(json.loads(content), tamper, signing)
                content = json.dumps({**tokens, **tamper.token_response}).encode()
            elif path == "/me" and status == 200 and tamper.userinfo_claims:
                content = json.dumps(_merge(json.loads(content), tamper.userinfo_claims)).encode()
        await _respond(send, status, content, headers.get("content-type", "application/json"))

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._client = httpx.AsyncClient(trust_env=False, timeout=10)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _forward(
        self, scope: Message, body: bytes, path: str
    ) -> tuple[int, httpx.Headers, bytes]:
        assert self._client is not None
        keep = {"authorization", "content-type", "accept"}
        headers = [
            (name.decode(), value.decode())
            for name, value in scope["headers"]
            if name.decode().lower() in keep
        ]
        url = self.op.issuer + path
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode()
        answer = await self._client.request(scope["method"], url, headers=headers, content=body)
        return answer.status_code, answer.headers, answer.content

    # -- rewriting ---------------------------------------------------------------------------

    def _discovery(self, document: dict[str, Any], variant: str | None) -> dict[str, Any]:
        base = self.url + (f"/{variant}" if variant else "")
        moved = {
            name: base + value[len(self.op.issuer) :]
            for name, value in document.items()
            if name.endswith(("_endpoint", "_uri"))
            and name != "authorization_endpoint"
            and isinstance(value, str)
            and value.startswith(self.op.issuer + "/")
        }
        document = {**document, **moved, "issuer": self.url}
        if variant == "pkce-plain":
            document["code_challenge_methods_supported"] = ["plain"]
        return document

    def _tokens(
        self, tokens: dict[str, Any], tamper: Tamper, signing: Signing | Literal["small-key"]
    ) -> dict[str, Any]:
        id_token = tokens.get("id_token")
        if not isinstance(id_token, str):
            return tokens
        claims = json.loads(base64.urlsafe_b64decode(id_token.split(".")[1] + "=="))
        claims = _merge({**claims, "iss": self.url}, tamper.id_token_claims)
        return {**tokens, "id_token": self.sign(claims, signing)}

    def sign(self, claims: Mapping[str, Any], signing: Signing | Literal["small-key"]) -> str:
        """A compact JWS of ``claims`` signed as ``signing`` says."""
        payload = json.dumps(dict(claims)).encode()
        kid = self.op.signing_key["kid"]
        if signing == "small-key":
            # By hand: JOSE libraries (rightly) warn about an RSA key this small.
            header = b64url(json.dumps({"alg": "RS256", "typ": "JWT", "kid": SMALL_KID}).encode())
            signing_input = f"{header}.{b64url(payload)}"
            signature = small_key().sign(
                signing_input.encode(), padding.PKCS1v15(), hashes.SHA256()
            )
            return f"{signing_input}.{b64url(signature)}"
        if signing == "alg-none":
            header = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
            return f"{header}.{b64url(payload)}."
        if signing == "hs256-public-key":
            # Forged by hand: JOSE libraries refuse a public key as an HMAC secret.
            secret = self.op_key.as_pem(private=False)
            header = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
            signing_input = f"{header}.{b64url(payload)}"
            mac = hmac.digest(secret, signing_input.encode(), "sha256")
            return f"{signing_input}.{b64url(mac)}"
        key = self.op_key if signing == "op-key" else self.foreign_key
        if signing == "unknown-kid":
            kid = "unknown-kid"
        protected = {"alg": "RS256", "typ": "JWT", "kid": kid}
        return jws.serialize_compact(protected, payload, key, algorithms=["RS256"])

    async def _fault(self, fault: TokenFault, receive: Receive, send: Send) -> None:
        if fault == "500":
            await _respond(send, 500, b"<h1>Internal Server Error</h1>", "text/html")
        elif fault == "invalid-json":
            await _respond(send, 200, b'{"access_token": "x", "token_type": ', "application/json")
        elif fault == "stall":
            with anyio.move_on_after(STALL_LIMIT):
                while (await receive())["type"] != "http.disconnect":
                    pass
        else:
            await _stream_huge(send)


def _variant(path: str) -> tuple[str | None, str]:
    """``(variant, path within it)`` of a request path (no variant: ``(None, path)``)."""
    for variant in VARIANTS:
        if path.startswith(f"/{variant}/"):
            return variant, path[len(variant) + 1 :]
    return None, path


@cache
def small_key() -> rsa.RSAPrivateKey:
    """The ``/small-key`` variant's signing key: RSA of 1024 bits."""
    return rsa.generate_private_key(public_exponent=65537, key_size=1024)


def small_key_jwk() -> dict[str, str]:
    numbers = small_key().public_key().public_numbers()
    return {
        "kty": "RSA",
        "kid": SMALL_KID,
        "use": "sig",
        "alg": "RS256",
        "n": b64url(numbers.n.to_bytes(128, "big")),
        "e": b64url(numbers.e.to_bytes(3, "big")),
    }


async def _read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _respond(send: Send, status: int, body: bytes, content_type: str) -> None:
    headers = [(b"content-type", content_type.encode()), (b"cache-control", b"no-store")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _stream_huge(send: Send) -> None:
    """A JSON token response over the size cap, chunked (no ``Content-Length`` to trust)."""
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    chunk = b" " * (64 * 1024)
    try:
        await send({"type": "http.response.body", "body": b'{"padding": "', "more_body": True})
        for _ in range(HUGE_BODY // len(chunk)):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b'", "access_token": "x"}'})
    except OSError:
        pass  # the client hung up at its cap


@contextmanager
def serve_proxy(proxy: TamperingProxy) -> Iterator[TamperingProxy]:
    """Serve ``proxy`` with uvicorn on a free 127.0.0.1 port, in a thread, for the block."""
    port = free_port()
    config = uvicorn.Config(
        proxy, host="127.0.0.1", port=port, log_level="warning", lifespan="on", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="tampering-proxy", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the tampering proxy did not start")
        time.sleep(0.02)
    proxy.url = f"http://127.0.0.1:{port}"
    try:
        yield proxy
    finally:
        server.should_exit = True
        thread.join(timeout=10)
