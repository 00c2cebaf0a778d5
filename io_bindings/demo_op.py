"""The demo's own OpenID Provider: "Sign in with the demo provider", no account anywhere.

**For the demo only, never for production**: codes and tokens live in memory, the signing
key is made at start-up and lost at exit, there is one client, and whoever opens the
consent page may sign in as anyone they type.

It serves, under its issuer's path (``/demo-op`` of the demo's own origin), what an
OpenID Provider needs for the authorization-code flow with PKCE: the discovery document,
the JWKS, the authorization endpoint (a consent page), the token endpoint (RS256-signed ID
tokens, PKCE ``S256`` checked, client authenticated) and the userinfo endpoint. The engine
reaches it over real HTTP, as it would reach any provider.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from html import escape
from typing import Any
from urllib.parse import parse_qsl, urlencode

import msgspec
from joserfc import jwt
from joserfc.jwk import RSAKey

from sansio_auth import Response

from .translate import NOT_FOUND, Receive, Scope, Send, read_asgi_body, send_asgi_response

CLIENT_ID = "sansio-auth-demo"
CODE_LIFETIME = 60
TOKEN_LIFETIME = 300
_HTML = (("content-type", "text/html; charset=utf-8"),)


def _json(status: int, value: Any) -> Response:
    headers = (("content-type", "application/json"), ("cache-control", "no-store"))
    return Response(status=status, headers=headers, body=msgspec.json.encode(value))


def _error(error: str, status: int = 400) -> Response:
    return _json(status, {"error": error})


def s256_challenge(verifier: str) -> str:
    """The PKCE ``S256`` code challenge of ``verifier`` (RFC 7636)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


class DemoOP:
    """An in-process OpenID Provider at ``issuer`` (an ASGI app for the paths under it)."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer.rstrip("/")
        self.path = "/" + self.issuer.split("://", 1)[1].partition("/")[2]
        self.client_secret = secrets.token_urlsafe(32)
        self.key = RSAKey.generate_key(2048, parameters={"kid": secrets.token_hex(8)})
        self._codes: dict[str, dict[str, Any]] = {}
        self._tokens: dict[str, tuple[dict[str, Any], float]] = {}

    def provider(self) -> dict[str, Any]:
        """The ``oidc`` provider record that points the engine at this OP."""
        return {
            "id": "demo-op",
            "name": "the demo provider",
            "type": "oidc",
            "issuer": self.issuer,
            "client_id": CLIENT_ID,
            "client_secret": self.client_secret,
            "checks": ["pkce", "state", "nonce"],
        }

    def serves(self, path: str) -> bool:
        """Whether ``path`` is one of this OP's."""
        return path == self.path or path.startswith(self.path + "/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = (scope["method"], scope["path"][len(self.path) :])
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        body = await read_asgi_body(scope, receive, 64 * 1024) or b""
        form = dict(parse_qsl(body.decode("utf-8", "replace")))
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if route == ("GET", "/.well-known/openid-configuration"):
            response = _json(200, self.discovery())
        elif route == ("GET", "/jwks"):
            response = _json(200, {"keys": [self.key.as_dict(private=False, use="sig")]})
        elif route == ("GET", "/authorize"):
            response = self.consent_page(query)
        elif route == ("POST", "/authorize"):
            response = self.decide(form)
        elif route == ("POST", "/token"):
            response = self.token(form, headers.get("authorization", ""))
        elif route[1] == "/userinfo":
            response = self.userinfo(headers.get("authorization", ""))
        else:
            response = NOT_FOUND
        await send_asgi_response(send, response)

    def discovery(self) -> dict[str, Any]:
        """The OpenID Provider metadata."""
        return {
            "issuer": self.issuer,
            "authorization_endpoint": self.issuer + "/authorize",
            "token_endpoint": self.issuer + "/token",
            "userinfo_endpoint": self.issuer + "/userinfo",
            "jwks_uri": self.issuer + "/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "scopes_supported": ["openid", "profile", "email"],
            "authorization_response_iss_parameter_supported": True,
        }

    def consent_page(self, query: dict[str, str]) -> Response:
        """Sign in as anyone, and allow or deny the demo app."""
        if query.get("client_id") != CLIENT_ID or not query.get("redirect_uri"):
            return Response(status=400, headers=_HTML, body=b"Unknown client or redirect_uri")
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return self._redirect(query, {"error": "invalid_request"})
        hidden = "".join(
            f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">'
            for k, v in query.items()
        )
        html = (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Demo provider'
            "</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;"
            "margin:3rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}</style>"
            "</head><body><h1>Demo provider</h1><p>The <b>sansio-auth demo</b> asks to know "
            "your name and e-mail address. This provider is part of the demo: type any.</p>"
            f'<form method="post" action="{escape(self.issuer)}/authorize">{hidden}'
            '<label>Name <input id="name" name="name" value="Ada Lovelace"></label>'
            '<label>E-mail <input id="email" name="email" type="email" '
            'value="ada@demo-op.example"></label>'
            '<button name="decision" value="allow">Allow</button> '
            '<button name="decision" value="deny">Deny</button></form></body></html>'
        )
        return Response(headers=_HTML, body=html.encode())

    def decide(self, form: dict[str, str]) -> Response:
        """The consent form's answer: a one-time code, or ``access_denied``."""
        if form.get("client_id") != CLIENT_ID or not form.get("redirect_uri"):
            return Response(status=400, headers=_HTML, body=b"Unknown client or redirect_uri")
        if form.get("decision") != "allow":
            return self._redirect(form, {"error": "access_denied"})
        email = form.get("email", "").strip().lower() or "ada@demo-op.example"
        user = {
            "sub": hashlib.sha256(email.encode()).hexdigest()[:16],
            "name": form.get("name", "").strip() or email,
            "email": email,
            "email_verified": True,
        }
        code = secrets.token_urlsafe(32)
        self._codes[code] = {**form, "user": user, "expires": time.time() + CODE_LIFETIME}
        return self._redirect(form, {"code": code})

    def _redirect(self, params: dict[str, str], answer: dict[str, str]) -> Response:
        answer = {**answer, "iss": self.issuer}
        if "state" in params:
            answer["state"] = params["state"]
        location = params["redirect_uri"] + "?" + urlencode(answer)
        return Response(status=303, headers=(("location", location),))

    def token(self, form: dict[str, str], authorization: str) -> Response:
        """Exchange a code for tokens: client, ``redirect_uri`` and PKCE verifier checked."""
        client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        if authorization.startswith("Basic "):
            decoded = base64.b64decode(authorization[6:]).decode()
            client_id, _, secret = decoded.partition(":")
        if client_id != CLIENT_ID or not hmac.compare_digest(secret, self.client_secret):
            return _error("invalid_client", 401)
        grant = self._codes.pop(form.get("code", ""), None)  # a code works once
        if form.get("grant_type") != "authorization_code" or grant is None:
            return _error("invalid_grant")
        verifier = form.get("code_verifier", "")
        if (
            grant["expires"] < time.time()
            or grant["redirect_uri"] != form.get("redirect_uri")
            or not hmac.compare_digest(s256_challenge(verifier), grant["code_challenge"])
        ):
            return _error("invalid_grant")
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": CLIENT_ID, "iat": now, "exp": now + TOKEN_LIFETIME}
        claims |= grant["user"]
        if grant.get("nonce"):
            claims["nonce"] = grant["nonce"]
        header = {"alg": "RS256", "kid": self.key.kid}
        access_token = secrets.token_urlsafe(32)
        self._tokens[access_token] = (grant["user"], now + TOKEN_LIFETIME)
        return _json(
            200,
            {
                "access_token": access_token,
                "token_type": "Bearer",
                "expires_in": TOKEN_LIFETIME,
                "scope": grant.get("scope", "openid"),
                "id_token": jwt.encode(header, claims, self.key),
            },
        )

    def userinfo(self, authorization: str) -> Response:
        """The user's claims for a valid bearer token."""
        found = self._tokens.get(authorization.removeprefix("Bearer "))
        if found is None or found[1] < time.time():
            return _error("invalid_token", 401)
        return _json(200, found[0])
