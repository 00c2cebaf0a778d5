"""An in-memory OpenID Provider: it answers the engine's ``SendHTTP`` actions and signs ID tokens.

No socket: :meth:`MemoryOP.handle` answers discovery, JWKS, token and userinfo requests as
:class:`~sansio_auth.events.HTTPResponse`\\ s, and :meth:`MemoryOP.authorize` plays the
user's visit to the authorization endpoint (log-in and consent), returning where the
browser goes next. A :class:`~sansio_auth.testing.Browser` given ``op=`` does both for you.

Switches make it misbehave one way at a time, so each negative case is one line:
:meth:`MemoryOP.misbehave` (``"bad-signature"``, ``"wrong-nonce"``, ``"expired"``...),
``fail`` (an endpoint answers 500, times out, sends broken JSON or an OAuth error) and
``answers`` (an endpoint answers exactly the given response).

Keys are RS256 (and P-256 for ``ec-*`` kids), generated once per process and kid: key
generation is slow, and a test needs a key, not a secret one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, Protocol
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit

from joserfc import jws
from joserfc.jwk import ECKey, OctKey, RSAKey

from ..events import HTTPResponse, OutboundRequest
from ..http import Response
from ..oauth.checks import b64url
from ._clock import START


class Navigator(Protocol):
    """What :meth:`AuthorizationResult.follow` needs of a browser (a
    :class:`~sansio_auth.testing.Browser`, whose module imports this one)."""

    def get(self, path: str, **kwargs: Any) -> Response: ...
    def post(self, path: str, **kwargs: Any) -> Response: ...


ISSUER = "https://op.example"
CLIENT_ID = "client-1"
CLIENT_SECRET = "s3cret with space+/:"  # noqa: S105 - a test client's
"""Awkward on purpose: ``client_secret_basic`` must form-encode it."""

ALICE: dict[str, Any] = {
    "sub": "alice-sub",
    "name": "Alice Liddell",
    "email": "Alice@Example.COM",
    "picture": "https://op.example/alice.png",
    "email_verified": True,
}
"""The default (and only) user of a new :class:`MemoryOP`, logged in as ``"alice"``."""

ClientAuth = Literal["client_secret_basic", "client_secret_post", "none"]
Signing = Literal["valid", "bad-signature", "none", "hmac-public-key", "client-secret"]
Fault = Literal[
    "bad-signature", "unsigned", "wrong-nonce", "wrong-aud", "wrong-iss", "expired", "no-sub"
]
"""A way :meth:`MemoryOP.misbehave` spoils the ID token (see :data:`FAULTS`)."""
FAULTS: tuple[Fault, ...] = (
    "bad-signature",
    "unsigned",
    "wrong-nonce",
    "wrong-aud",
    "wrong-iss",
    "expired",
    "no-sub",
)
"""Every :data:`Fault` :meth:`MemoryOP.misbehave` knows: each makes the ID token unacceptable."""
ENDPOINTS = ("discovery", "jwks", "token", "userinfo")
"""The endpoints the engine calls: keys of ``fail`` (and ``authorize``) and ``answers``."""


@cache
def rsa_key(kid: str) -> RSAKey:
    """The RSA key ``kid`` (2048 bits, generated once per process and ``kid``)."""
    return RSAKey.generate_key(2048, parameters={"kid": kid, "use": "sig"})


@cache
def ec_key(kid: str) -> ECKey:
    """The P-256 key ``kid`` (generated once per process and ``kid``)."""
    return ECKey.generate_key("P-256", parameters={"kid": kid, "use": "sig"})


def signing_key(kid: str) -> RSAKey | ECKey:
    """``ec-*`` kids are P-256 keys, others RSA."""
    return ec_key(kid) if kid.startswith("ec-") else rsa_key(kid)


class AuthorizeRefused(ValueError):
    """The authorization request is one an OP shows an error page for (no redirect back)."""


@dataclass
class Grant:
    """An authorization code's facts, kept until the token request."""

    client_id: str
    redirect_uri: str
    user: str
    scope: str
    code_challenge: str | None
    nonce: str | None
    used: bool = False


@dataclass
class AuthorizationResult:
    """Where the OP sends the browser: ``GET url?params`` or (``form_post``) ``POST url``."""

    method: str
    url: str
    params: dict[str, str]

    def follow(self, browser: Navigator) -> Response:
        """Make that request with ``browser`` (no further redirects followed)."""
        if self.method == "POST":
            return browser.post(self.url, form=self.params)
        return browser.get(f"{self.url}?{urlencode(self.params)}")


def _json(value: Any, status: int = 200) -> HTTPResponse:
    return HTTPResponse(
        status=status, headers={"content-type": "application/json"}, body=json.dumps(value).encode()
    )


def merge_claims(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``changes``, where a ``None`` value removes the key."""
    merged = dict(base)
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


@dataclass
class MemoryOP:
    """A configurable OpenID Provider living in memory.

    >>> op = MemoryOP()
    >>> browser = Browser(AuthConfig(providers=[op.provider()], ...), op=op)
    >>> browser.sign_in("op")                      # signs in as "alice"
    """

    clock: Callable[[], float] = lambda: START
    """Used for ``iat``/``exp``; a :class:`~sansio_auth.testing.Browser` sets its own."""
    issuer: str = ISSUER
    client_id: str = CLIENT_ID
    client_secret: str = CLIENT_SECRET
    auth_method: ClientAuth = "client_secret_basic"
    """How the client must authenticate at the token endpoint."""
    users: dict[str, dict[str, Any]] = field(default_factory=lambda: {"alice": dict(ALICE)})
    """Log-in name → claims (in the ID token and from userinfo). The first is the default."""
    iss_parameter: bool = False
    """Advertise ``authorization_response_iss_parameter_supported`` and send ``iss`` back."""
    require_pkce: bool = False
    """Refuse an authorization request without an S256 ``code_challenge``."""
    signing_kid: str = "key-1"
    signing_alg: str = "RS256"
    published: list[str] = field(default_factory=lambda: ["key-1"])
    """``kid``\\ s in the JWKS (see :meth:`rotate`)."""
    id_token_lifetime: int = 300
    claims: dict[str, Any] = field(default_factory=dict)
    """Merged into every ID token's claims (a ``None`` value removes the claim)."""
    header: dict[str, Any] = field(default_factory=dict)
    """Merged into every ID token's header (``None`` removes)."""
    signing: Signing = "valid"
    """``valid``, ``bad-signature``, ``none`` (unsigned), ``hmac-public-key`` (forged), or
    ``client-secret``: HMAC (:attr:`signing_alg` ``HS256``/``384``/``512``) keyed by
    :attr:`hmac_key`, OpenID Connect Core §10.1."""
    hmac_key: str | None = None
    """The key of ``client-secret`` signing; default: the client secret."""
    signed_userinfo: bool = False
    """Answer userinfo as ``application/jwt`` with ``iss`` and ``aud`` (OpenID Connect Core
    §5.3.2), signed as ID tokens are unless :attr:`userinfo_signing` says otherwise."""
    userinfo_signing: Signing | None = None
    userinfo_signing_alg: str | None = None
    userinfo_claims: dict[str, Any] = field(default_factory=dict)
    """Merged into the userinfo answer."""
    fail: dict[str, str] = field(default_factory=dict)
    """Endpoint → ``500``, ``timeout`` (raises :class:`TimeoutError`), ``invalid-json``,
    ``too-large`` (raises :class:`ValueError`), ``error`` (an OAuth error answer),
    ``error-json`` (token: an error body with status 200); ``authorize`` → the ``error``
    code sent back to the client (``access_denied``...)."""
    answers: dict[str, HTTPResponse] = field(default_factory=dict)
    """Endpoint → the exact response to give (e.g. drawn from
    :func:`~sansio_auth.testing.strategies.provider_responses`)."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Merged into the discovery document."""
    requests: list[OutboundRequest] = field(default_factory=list)
    """Every request the engine sent, in order."""
    grants: dict[str, Grant] = field(default_factory=dict)
    access_tokens: dict[str, str] = field(default_factory=dict)
    refresh_tokens: dict[str, str] = field(default_factory=dict)
    """Live refresh tokens → user (clear it to revoke every grant)."""
    rotate_refresh_tokens: bool = True
    """The refresh grant returns a new refresh token and revokes the old one."""
    refresh_expires_in: int = 3600
    """``expires_in`` of the access tokens the refresh grant issues."""
    refresh_id_token: bool = False
    """The refresh grant returns a new ID token too (OpenID Connect Core §12.2)."""
    refresh_claims: dict[str, Any] = field(default_factory=dict)
    """Merged into the ID tokens the refresh grant returns (``None`` removes)."""
    counter: int = 0

    # -- set-up ------------------------------------------------------------------------------

    def provider(self, **options: Any) -> dict[str, Any]:
        """A provider mapping for this OP (id ``op``, ``type: oidc``; ``options`` override)."""
        return {
            "id": "op",
            "name": "Memory OP",
            "type": "oidc",
            "issuer": self.issuer,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "client": {"token_endpoint_auth_method": self.auth_method},
            **options,
        }

    def misbehave(self, *faults: Fault) -> MemoryOP:
        """Make every ID token from now on unacceptable in the named ways; returns ``self``."""
        changes: dict[Fault, Callable[[], None]] = {
            "bad-signature": lambda: setattr(self, "signing", "bad-signature"),
            "unsigned": lambda: setattr(self, "signing", "none"),
            "wrong-nonce": lambda: self.claims.update(nonce="not-the-nonce-you-sent"),
            "wrong-aud": lambda: self.claims.update(aud="someone-else"),
            "wrong-iss": lambda: self.claims.update(iss="https://impostor.example"),
            "expired": lambda: setattr(self, "id_token_lifetime", -3600),
            "no-sub": lambda: self.claims.update(sub=""),
        }
        for fault in faults:
            if fault not in changes:
                raise ValueError(f"unknown fault {fault!r}: one of {', '.join(FAULTS)}")
            changes[fault]()
        return self

    def behave(self) -> MemoryOP:
        """Undo :meth:`misbehave`, ``fail`` and ``answers``; returns ``self``."""
        self.signing, self.id_token_lifetime = "valid", 300
        self.claims.clear()
        self.fail.clear()
        self.answers.clear()
        return self

    def rotate(self, kid: str | None = None, *, keep_old: bool = True) -> str:
        """Sign with a new key from now on (``kid``, or the next ``key-N``) and publish it
        first in the JWKS; the old keys stay published unless ``keep_old`` is false."""
        kid = kid or f"key-{len(self.published) + 1}"
        self.published = [kid, *(self.published if keep_old else [])]
        self.signing_kid = kid
        if kid.startswith("ec-"):
            self.signing_alg = "ES256"
        return kid

    # -- URLs --------------------------------------------------------------------------------

    @property
    def discovery_url(self) -> str:
        return self.issuer.rstrip("/") + "/.well-known/openid-configuration"

    def endpoint(self, name: str) -> str:
        """The URL of endpoint ``name`` (``authorize``, ``token``, ``userinfo``, ``jwks``)."""
        return f"{self.issuer.rstrip('/')}/{name}"

    def document(self) -> dict[str, Any]:
        """The discovery document."""
        document: dict[str, Any] = {
            "issuer": self.issuer,
            "authorization_endpoint": self.endpoint("authorize"),
            "token_endpoint": self.endpoint("token"),
            "userinfo_endpoint": self.endpoint("userinfo"),
            "jwks_uri": self.endpoint("jwks"),
            "response_types_supported": ["code"],
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": [
                "client_secret_basic",
                "client_secret_post",
                "none",
            ],
        }
        if self.iss_parameter:
            document["authorization_response_iss_parameter_supported"] = True
        document.update(self.metadata)
        return document

    def jwks(self) -> dict[str, Any]:
        """The published public keys."""
        return {"keys": [signing_key(kid).as_dict(private=False) for kid in self.published]}

    def count(self, name: str) -> int:
        """How many requests reached endpoint ``name`` (``discovery``, ``jwks``, ``token``...)."""
        return sum(1 for r in self.requests if self._route(r.url) == name)

    def is_authorize(self, url: str) -> bool:
        """Whether ``url`` is a visit to the authorization endpoint."""
        return url.split("?")[0] == self.endpoint("authorize")

    # -- the browser's visit -------------------------------------------------------------------

    def authorize(
        self, url: str, user: str | None = None, *, error: str | None = None
    ) -> AuthorizationResult:
        """``user`` (default: the first of :attr:`users`) logs in and consents, or the OP
        answers ``error`` (or ``fail["authorize"]``); where the browser goes next.

        Raises :class:`AuthorizeRefused` for a request an OP would not redirect back from.
        """
        if not self.is_authorize(url):
            raise AuthorizeRefused(f"not this OP's authorization endpoint: {url}")
        params = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
        if params.get("client_id") != self.client_id or not params.get("redirect_uri"):
            raise AuthorizeRefused("unknown client_id or no redirect_uri")
        user = user or next(iter(self.users))
        if user not in self.users:
            raise AuthorizeRefused(f"no user {user!r} at this OP")
        error = error or self.fail.get("authorize") or self._authorize_error(params)
        reply: dict[str, str] = {}
        if error is not None:
            reply = {"error": error, "error_description": "The request was refused"}
        else:
            self.counter += 1
            code = f"code-{self.counter}"
            self.grants[code] = Grant(
                client_id=self.client_id,
                redirect_uri=params["redirect_uri"],
                user=user,
                scope=params.get("scope", ""),
                code_challenge=params.get("code_challenge"),
                nonce=params.get("nonce"),
            )
            reply["code"] = code
        if "state" in params:
            reply["state"] = params["state"]
        if self.iss_parameter:
            reply["iss"] = self.issuer
        method = "POST" if params.get("response_mode") == "form_post" else "GET"
        return AuthorizationResult(method, params["redirect_uri"], reply)

    def _authorize_error(self, params: Mapping[str, str]) -> str | None:
        if params.get("response_type") != "code":
            return "unsupported_response_type"
        method = params.get("code_challenge_method")
        if method not in (None, "S256") or ("code_challenge" in params) != (method is not None):
            return "invalid_request"
        if self.require_pkce and "code_challenge" not in params:
            return "invalid_request"
        return None

    # -- the engine's requests ---------------------------------------------------------------------

    def _route(self, url: str) -> str:
        path = url.split("?")[0]
        if path == self.discovery_url:
            return "discovery"
        base = self.issuer.rstrip("/") + "/"
        return path[len(base) :] if path.startswith(base) else "unknown"

    def handle(self, request: OutboundRequest) -> HTTPResponse:
        """Answer one request the engine sends (give it as the performer's ``http``)."""
        self.requests.append(request)
        name = self._route(request.url)
        if name in self.answers:
            return self.answers[name]
        failure = self.fail.get(name)
        if failure == "timeout":
            raise TimeoutError(f"{name} timed out")
        if failure == "too-large":
            raise ValueError(f"{name} response body exceeds the size cap")
        if failure == "500":
            return HTTPResponse(status=500, body=b"<h1>Internal Server Error</h1>")
        if failure == "invalid-json":
            return HTTPResponse(
                status=200,
                headers={"content-type": "application/json"},
                body=b'{"access_token": "x", ',
            )
        if failure == "error":
            return _json({"error": "server_error", "error_description": "failing on purpose"}, 400)
        handlers: dict[str, Callable[[OutboundRequest], HTTPResponse]] = {
            "discovery": lambda r: _json(self.document()),
            "jwks": lambda r: _json(self.jwks()),
            "token": self._token,
            "userinfo": self._userinfo,
        }
        handler = handlers.get(name)
        if handler is None or request.method != ("POST" if name == "token" else "GET"):
            return HTTPResponse(status=404, body=b"not found")
        return handler(request)

    def _token(self, request: OutboundRequest) -> HTTPResponse:
        form = dict(parse_qsl(request.body.decode(), keep_blank_values=True))
        if not self._client_ok(form, dict(request.headers)):
            return _json({"error": "invalid_client"}, 401)
        if form.get("grant_type") == "refresh_token":
            return self._refresh(form)
        grant = self.grants.get(form.get("code", ""))
        if form.get("grant_type") != "authorization_code" or grant is None or grant.used:
            if grant is not None:
                grant.used = True
            return _json({"error": "invalid_grant", "error_description": "bad or used code"}, 400)
        grant.used = True
        if form.get("redirect_uri") != grant.redirect_uri:
            return _json({"error": "invalid_grant", "error_description": "redirect_uri"}, 400)
        verifier = form.get("code_verifier")
        if grant.code_challenge is not None:
            digest = b64url(hashlib.sha256((verifier or "").encode()).digest())
            if digest != grant.code_challenge:
                return _json({"error": "invalid_grant", "error_description": "PKCE"}, 400)
        elif verifier is not None:
            return _json({"error": "invalid_grant", "error_description": "no challenge"}, 400)
        if self.fail.get("token") == "error-json":
            return _json({"error": "server_error"}, 200)
        access_token = f"at-{self.counter}-{grant.user}"
        self.access_tokens[access_token] = grant.user
        body: dict[str, Any] = {
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": 3600,
            "refresh_token": f"rt-{self.counter}",
            "scope": grant.scope,
        }
        if "openid" in grant.scope.split():
            body["id_token"] = self.id_token(grant.user, nonce=grant.nonce)
        self.refresh_tokens[body["refresh_token"]] = grant.user
        return _json(body)

    def _refresh(self, form: Mapping[str, str]) -> HTTPResponse:
        """The refresh-token grant: a new access token; with :attr:`rotate_refresh_tokens`
        a new refresh token too, the old one revoked."""
        user = self.refresh_tokens.get(form.get("refresh_token", ""))
        if user is None:
            return _json({"error": "invalid_grant", "error_description": "bad refresh"}, 400)
        self.counter += 1
        access_token = f"at-{self.counter}-{user}"
        self.access_tokens[access_token] = user
        body: dict[str, Any] = {
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": self.refresh_expires_in,
        }
        if self.rotate_refresh_tokens:
            del self.refresh_tokens[form["refresh_token"]]
            body["refresh_token"] = f"rt-{self.counter}"
            self.refresh_tokens[body["refresh_token"]] = user
        if self.refresh_id_token:
            body["id_token"] = self.id_token(user, changes=self.refresh_claims)
        return _json(body)

    def _client_ok(self, form: Mapping[str, str], headers: Mapping[str, str]) -> bool:
        auth = headers.get("authorization", "")
        if self.auth_method == "client_secret_basic":
            if not auth.startswith("Basic ") or "client_secret" in form:
                return False
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
            return (unquote_plus(user), unquote_plus(password)) == (
                self.client_id,
                self.client_secret,
            )
        if auth:
            return False
        if self.auth_method == "client_secret_post":
            return (form.get("client_id"), form.get("client_secret")) == (
                self.client_id,
                self.client_secret,
            )
        return form.get("client_id") == self.client_id and "client_secret" not in form

    def _userinfo(self, request: OutboundRequest) -> HTTPResponse:
        auth = dict(request.headers).get("authorization", "")
        user = self.access_tokens.get(auth.removeprefix("Bearer "))
        if not auth.startswith("Bearer ") or user is None:
            return _json({"error": "invalid_token"}, 401)
        if not self.signed_userinfo:
            return _json(merge_claims(self.users[user], self.userinfo_claims))
        issued = merge_claims(
            {"iss": self.issuer, "aud": self.client_id, **self.users[user]}, self.userinfo_claims
        )
        alg = self.userinfo_signing_alg or self.signing_alg
        header = merge_claims({"alg": alg, "kid": self.signing_kid}, self.header)
        token = self.sign(issued, header, self.userinfo_signing)
        return HTTPResponse(
            status=200, headers={"content-type": "application/jwt"}, body=token.encode()
        )

    # -- ID tokens ---------------------------------------------------------------------------------

    def id_token(
        self, user: str, *, nonce: str | None = None, changes: Mapping[str, Any] | None = None
    ) -> str:
        """An ID token for ``user`` (with ``nonce``; ``changes`` merged last), as the switches
        make it."""
        now = int(self.clock())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
            "exp": now + self.id_token_lifetime,
            "iat": now,
            **self.users[user],
        }
        if nonce is not None:
            claims["nonce"] = nonce
        header = merge_claims(
            {"alg": self.signing_alg, "kid": self.signing_kid, "typ": "JWT"}, self.header
        )
        return self.sign(merge_claims(merge_claims(claims, self.claims), changes or {}), header)

    def sign(
        self, claims: Mapping[str, Any], header: Mapping[str, Any], how: Signing | None = None
    ) -> str:
        """A compact JWS of ``claims`` under ``header``, as ``how`` (default
        :attr:`signing`) says."""
        how = how or self.signing
        payload = json.dumps(dict(claims)).encode()
        if how == "none":
            head = b64url(json.dumps({**header, "alg": "none"}).encode())
            return f"{head}.{b64url(payload)}."
        if how == "hmac-public-key":
            # Forged by hand: JOSE libraries (rightly) refuse a public key as an HMAC secret.
            public_pem = rsa_key(self.signing_kid).as_pem(private=False)
            head = b64url(json.dumps({**header, "alg": "HS256"}).encode())
            signing_input = f"{head}.{b64url(payload)}"
            mac = hmac.digest(public_pem, signing_input.encode(), "sha256")
            return f"{signing_input}.{b64url(mac)}"
        if how == "client-secret":
            key = OctKey.import_key((self.hmac_key or self.client_secret).encode())
            unkeyed = {k: v for k, v in header.items() if k != "kid"}
            return jws.serialize_compact(unkeyed, payload, key, [header["alg"]])
        token = jws.serialize_compact(
            dict(header), payload, signing_key(self.signing_kid), [header["alg"]]
        )
        if how == "bad-signature":
            head, _, signature = token.split(".")
            forged = b64url(json.dumps({**claims, "sub": "mallory"}).encode())
            return f"{head}.{forged}.{signature}"
        return token
