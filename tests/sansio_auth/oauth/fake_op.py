"""An in-memory OpenID Provider: answers the engine's ``SendHTTP`` actions, signs ID tokens.

No sockets: :meth:`FakeOP.handle` is the performer's HTTP peer (discovery, JWKS,
token, userinfo), and :meth:`FakeOP.authorize` plays the user's visit to the
authorization endpoint (login + consent) and returns where the browser goes next.
Knobs make it misbehave one way at a time (``fail``, ``claims``, ``header``,
``signing``...), so each negative case is one line in a test.

>>> op = FakeOP(clock)
>>> pair = AuthPair.build(providers=[op.provider()])
>>> pair.performer.http = op.handle
>>> response = sign_in(pair.browser, op)          # POST signin, OP login, callback
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit

from joserfc import jws
from joserfc.jwk import ECKey, RSAKey

from sansio_auth import Response
from sansio_auth.events import HTTPResponse, OutboundRequest
from tests.sansio_auth.driver import ORIGIN, AuthPair, Browser, deleted_names, written

ISSUER = "https://op.example"
CLIENT_ID = "client-1"
CLIENT_SECRET = "s3cret with space+/:"
"""Awkward on purpose: client_secret_basic must form-encode it."""

ALICE = {
    "sub": "alice-sub",
    "name": "Alice Liddell",
    "email": "Alice@Example.COM",
    "picture": "https://op.example/alice.png",
    "email_verified": True,
}


@cache
def rsa_key(kid: str) -> RSAKey:
    """An RSA key (generated once per process and ``kid``: key generation is slow)."""
    return RSAKey.generate_key(2048, parameters={"kid": kid, "use": "sig"})


@cache
def ec_key(kid: str) -> ECKey:
    return ECKey.generate_key("P-256", parameters={"kid": kid, "use": "sig"})


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Grant:
    client_id: str
    redirect_uri: str
    user: str
    scope: str
    code_challenge: str | None
    nonce: str | None
    used: bool = False


@dataclass
class AuthorizationResult:
    """Where the OP sends the browser: ``GET url`` (query) or ``POST url`` (form_post)."""

    method: str
    url: str
    params: dict[str, str]

    def follow(self, browser: Browser) -> Response:
        if self.method == "POST":
            return browser.post(self.url, form=self.params)
        return browser.get(f"{self.url}?{urlencode(self.params)}")


@dataclass
class FakeOP:
    """A configurable OpenID Provider living in memory."""

    clock: Callable[[], float] = lambda: 1_800_000_000.0
    """Set by :meth:`connect` to the engine's clock."""
    issuer: str = ISSUER
    client_id: str = CLIENT_ID
    client_secret: str = CLIENT_SECRET
    auth_method: str = "client_secret_basic"
    users: dict[str, dict[str, Any]] = field(default_factory=lambda: {"alice": dict(ALICE)})
    iss_parameter: bool = False
    """Advertise ``authorization_response_iss_parameter_supported`` and send ``iss``."""
    signing_kid: str = "key-1"
    signing_alg: str = "RS256"
    published: list[str] = field(default_factory=lambda: ["key-1"])
    """``kid``s in the JWKS (``ec-*`` kids are P-256 keys, others RSA)."""
    claims: dict[str, Any] = field(default_factory=dict)
    """Merged into every ID token's claims (a ``None`` value removes the claim)."""
    header: dict[str, Any] = field(default_factory=dict)
    """Merged into every ID token's header (``None`` removes)."""
    signing: str = "valid"
    """``valid``, ``bad-signature``, ``none`` (unsigned), ``hmac-public-key``."""
    userinfo_claims: dict[str, Any] = field(default_factory=dict)
    fail: dict[str, str] = field(default_factory=dict)
    """Endpoint name → ``500``, ``timeout``, ``invalid-json``, ``too-large``, ``error-json``."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Merged into the discovery document."""
    requests: list[OutboundRequest] = field(default_factory=list)
    grants: dict[str, Grant] = field(default_factory=dict)
    access_tokens: dict[str, str] = field(default_factory=dict)
    refresh_tokens: dict[str, str] = field(default_factory=dict)
    """Live refresh tokens → user."""
    rotate: bool = True
    """The refresh grant returns a new refresh token and revokes the old one."""
    refresh_expires_in: int = 3600
    counter: int = 0

    def connect(self, pair: AuthPair) -> None:
        """Share ``pair``'s clock and answer its performer's HTTP requests."""
        self.clock = pair.clock
        pair.performer.http = self.handle

    # -- URLs --------------------------------------------------------------------------------

    @property
    def discovery_url(self) -> str:
        return self.issuer.rstrip("/") + "/.well-known/openid-configuration"

    def endpoint(self, name: str) -> str:
        return f"{self.issuer.rstrip('/')}/{name}"

    def document(self) -> dict[str, Any]:
        document = {
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

    def provider(self, **options: Any) -> dict[str, Any]:
        """A provider mapping for this OP (``type: oidc`` unless overridden)."""
        return {
            "id": "op",
            "name": "Fake OP",
            "type": "oidc",
            "issuer": self.issuer,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "client": {"token_endpoint_auth_method": self.auth_method},
            **options,
        }

    def count(self, name: str) -> int:
        """How many requests reached endpoint ``name`` (``discovery``, ``jwks``, ``token``...)."""
        return sum(1 for r in self.requests if self._route(r.url) == name)

    # -- the browser's visit -------------------------------------------------------------------

    def authorize(
        self, url: str, user: str = "alice", *, error: str | None = None
    ) -> AuthorizationResult:
        """The user signs in (or the OP answers ``error``); where the browser goes next."""
        assert url.startswith(self.endpoint("authorize") + "?"), url
        params = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
        assert params["response_type"] == "code"
        assert params["client_id"] == self.client_id
        redirect_uri = params["redirect_uri"]
        reply: dict[str, str] = {}
        if error is not None:
            reply = {"error": error, "error_description": "The user said no"}
        else:
            self.counter += 1
            code = f"code-{self.counter}"
            method = params.get("code_challenge_method")
            assert method in (None, "S256")
            self.grants[code] = Grant(
                client_id=self.client_id,
                redirect_uri=redirect_uri,
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
        if params.get("response_mode") == "form_post":
            return AuthorizationResult("POST", redirect_uri, reply)
        return AuthorizationResult("GET", redirect_uri, reply)

    # -- the engine's requests ---------------------------------------------------------------------

    def _route(self, url: str) -> str:
        if url.split("?")[0] == self.discovery_url:
            return "discovery"
        base = self.issuer.rstrip("/") + "/"
        return url.split("?")[0][len(base) :] if url.startswith(base) else "unknown"

    def handle(self, request: OutboundRequest) -> HTTPResponse:
        """Answer one outbound request (raises ``TimeoutError`` for a ``timeout`` failure)."""
        self.requests.append(request)
        name = self._route(request.url)
        failure = self.fail.get(name)
        if failure == "timeout":
            raise TimeoutError(f"{name} timed out")
        if failure == "too-large":
            raise ValueError(f"{name} response body exceeds the size cap")
        if failure == "500":
            return HTTPResponse(status=500, body=b"<h1>Internal Server Error</h1>")
        if failure == "invalid-json":
            return HTTPResponse(status=200, headers=_JSON, body=b'{"access_token": "x", ')
        handler = {
            "discovery": lambda r: _json(self.document()),
            "jwks": lambda r: _json(self.jwks()),
            "token": self._token,
            "userinfo": self._userinfo,
        }.get(name)
        if handler is None or request.method != ("POST" if name == "token" else "GET"):
            return HTTPResponse(status=404, body=b"not found")
        return handler(request)

    def jwks(self) -> dict[str, Any]:
        return {"keys": [_key(kid).as_dict(private=False) for kid in self.published]}

    def _token(self, request: OutboundRequest) -> HTTPResponse:
        form = dict(parse_qsl(request.body.decode(), keep_blank_values=True))
        headers = dict(request.headers)
        if not self._client_ok(form, headers):
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
        """The refresh-token grant: a new access token; with ``rotate`` a new refresh token
        too, the old one revoked."""
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
        if self.rotate:
            del self.refresh_tokens[form["refresh_token"]]
            body["refresh_token"] = f"rt-{self.counter}"
            self.refresh_tokens[body["refresh_token"]] = user
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
        return _json(_merge(self.users[user], self.userinfo_claims))

    # -- ID tokens ---------------------------------------------------------------------------------

    def id_token(self, user: str, *, nonce: str | None = None) -> str:
        now = int(self.clock())
        claims = {
            "iss": self.issuer,
            "aud": self.client_id,
            "exp": now + 300,
            "iat": now,
            **self.users[user],
        }
        if nonce is not None:
            claims["nonce"] = nonce
        header = _merge(
            {"alg": self.signing_alg, "kid": self.signing_kid, "typ": "JWT"}, self.header
        )
        return self.sign(_merge(claims, self.claims), header)

    def sign(self, claims: Mapping[str, Any], header: Mapping[str, Any]) -> str:
        payload = json.dumps(dict(claims)).encode()
        if self.signing == "none":
            head = b64url(json.dumps({**header, "alg": "none"}).encode())
            return f"{head}.{b64url(payload)}."
        if self.signing == "hmac-public-key":
            # Forged by hand: JOSE libraries (rightly) refuse a public key as an HMAC secret.
            public_pem = rsa_key(self.signing_kid).as_pem(private=False)
            head = b64url(json.dumps({**header, "alg": "HS256"}).encode())
            signing_input = f"{head}.{b64url(payload)}"
            mac = hmac.digest(public_pem, signing_input.encode(), "sha256")
            return f"{signing_input}.{b64url(mac)}"
        token = jws.serialize_compact(
            dict(header), payload, _key(self.signing_kid), [header["alg"]]
        )
        if self.signing == "bad-signature":
            head, _, signature = token.split(".")
            forged = b64url(json.dumps({**claims, "sub": "mallory"}).encode())
            return f"{head}.{forged}.{signature}"
        return token


def _key(kid: str) -> RSAKey | ECKey:
    return ec_key(kid) if kid.startswith("ec-") else rsa_key(kid)


_JSON = {"content-type": "application/json"}


def _json(value: Any, status: int = 200) -> HTTPResponse:
    return HTTPResponse(status=status, headers=_JSON, body=json.dumps(value).encode())


def _merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


# -- driving a sign-in ---------------------------------------------------------------------------


def start(browser: Browser, provider_id: str = "op", query: str = "", **form: str) -> Response:
    """``POST signin/<id>`` with the CSRF token; the answer redirects to the OP."""
    fields = {"csrfToken": browser.csrf_token(), **form}
    path = f"{browser.base}/signin/{provider_id}" + (f"?{query}" if query else "")
    return browser.post(path, form=fields)


def sign_in(
    browser: Browser,
    op: FakeOP,
    provider_id: str = "op",
    *,
    user: str = "alice",
    error: str | None = None,
    tamper: Callable[[AuthorizationResult], None] | None = None,
    **form: str,
) -> Response:
    """The whole round trip: start, the OP's login page, the callback. The callback's answer."""
    response = start(browser, provider_id, **form)
    assert response.status == 302, response
    assert response.location is not None
    result = op.authorize(response.location, user, error=error)
    if tamper is not None:
        tamper(result)
    return result.follow(browser)


def build(op: FakeOP, *, config: Mapping[str, Any] | None = None, **provider: Any) -> AuthPair:
    """An engine with one provider for ``op`` (id ``op``), a ``sign_in`` event recorder, wired."""
    options = dict(config or {})
    options.setdefault("events", {"sign_in": lambda **message: None})
    pair = AuthPair.build(providers=[op.provider(**provider)], **options)
    op.connect(pair)
    return pair


def assert_signed_in(pair: AuthPair, response: Response, *, to: str = ORIGIN) -> Any:
    """Alice is signed in: session cookie, session, one ``sign_in`` event (returned)."""
    assert response.status == 302, response
    assert response.location == to
    assert "authjs.session-token" in written(response)
    session = pair.browser.session()
    assert session["user"] == {
        "name": "Alice Liddell",
        "email": "alice@example.com",
        "image": "https://op.example/alice.png",
    }
    [event] = pair.performer.emitted("sign_in")
    assert event["account"]["provider_account_id"] == "alice-sub"
    return event


def assert_failed(
    pair: AuthPair,
    response: Response,
    error: str = "Configuration",
    *,
    page: str = "error",
    checks: set[str] | frozenset[str] = frozenset(),
    browser: Browser | None = None,
    because: str | None = None,
) -> None:
    """The callback ended on ``page`` with ``error``: no session, no ``sign_in``, logged.

    ``checks`` are the check cookies the browser sent: each must be deleted;
    ``because`` is a piece of the logged error message (the reason it failed).
    """
    assert response.status == 302, response
    assert response.location == f"{ORIGIN}{pair.browser.base}/{page}?error={error}"
    assert not any(name.startswith("authjs.session-token") for name in written(response))
    jar = (browser or pair.browser).cookies()
    assert not any(name.startswith("authjs.session-token") for name in jar)
    assert pair.performer.emitted("sign_in") == []
    errors = [entry.message for entry in pair.performer.logs if entry.level == "error"]
    assert errors, "the failure was not logged"
    if because is not None:
        assert any(because in message for message in errors), errors
    assert checks <= deleted_names(response)
