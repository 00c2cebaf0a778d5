"""The demo OpenID Provider: OAuth sign-in with no account anywhere, for development and
tests (docs/demo-provider.md).

**Never for production**: whoever opens its consent page signs in as anyone they type;
codes and tokens live in memory; the signing key is made at start-up and lost at exit;
there is one client, and any ``redirect_uri`` is accepted.

It serves, under its issuer's path, what an OpenID Provider needs for the
authorization-code flow with PKCE: the discovery document, the JWKS, the authorization
endpoint (a consent page), the token endpoint (RS256-signed ID tokens, PKCE ``S256``
checked, the client authenticated) and the userinfo endpoint. The engine reaches it over
real HTTP, as it reaches any provider. Three ways to run it:

* ``python -m io_bindings.demo_op --port 9000``: on its own port, with fixed client
  credentials it prints (``--client-id``/``--client-secret`` or ``DEMO_OP_CLIENT_ID``/
  ``DEMO_OP_CLIENT_SECRET`` to change them); point your app at it with
  ``providers=[demo_provider("http://127.0.0.1:9000")]``;
* ``with serving() as op:`` in a test: the same, on a free port in a background thread;
* ``DemoOP(issuer)``: the ASGI app itself, to mount in your own app (as ``make demo`` does
  under ``/demo-op``).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import os
import secrets
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from html import escape
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import msgspec
from joserfc import jwt
from joserfc.jwk import RSAKey

from sansio_auth import Response

from ._cli import bind, serve_until_stopped
from .translate import NOT_FOUND, Receive, Scope, Send, read_asgi_body, send_asgi_response

CLIENT_ID = "sansio-auth-demo"
"""The client id the demo provider knows, unless told another."""
CLIENT_SECRET = "sansio-auth-demo-secret"  # noqa: S105 - a dev tool's known, printed secret
"""The client secret of the command and :func:`serving`, unless told another."""
PROVIDER_ID = "demo-op"
"""The id of :func:`demo_provider`'s provider (its routes: ``<base_path>/signin/demo-op``)."""
DEFAULT_PORT = 9000
"""The port ``python -m io_bindings.demo_op`` listens on unless told otherwise."""
CODE_LIFETIME = 60
"""Seconds an authorization code can be exchanged."""
TOKEN_LIFETIME = 300
"""Seconds an access token (and the ID token) is valid."""
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


def demo_provider(
    issuer: str, *, client_id: str = CLIENT_ID, client_secret: str = CLIENT_SECRET
) -> dict[str, Any]:
    """The ``oidc`` provider (a mapping for ``AuthConfig(providers=[...])``) that signs in
    with the demo provider at ``issuer``, e.g. ``demo_provider("http://127.0.0.1:9000")``."""
    return {
        "id": PROVIDER_ID,
        "name": "the demo provider",
        "type": "oidc",
        "issuer": issuer.rstrip("/"),
        "client_id": client_id,
        "client_secret": client_secret,
        "checks": ["pkce", "state", "nonce"],
    }


class DemoOP:
    """The demo OpenID Provider at ``issuer``: an ASGI app serving the paths under it.

    Its one client is ``client_id`` with ``client_secret`` (default: a random secret,
    made at start-up)."""

    def __init__(
        self, issuer: str, *, client_id: str = CLIENT_ID, client_secret: str | None = None
    ) -> None:
        self.issuer = issuer.rstrip("/")
        self.path = urlsplit(self.issuer).path  # "" at the root of its origin
        self.client_id = client_id
        self.client_secret = client_secret or secrets.token_urlsafe(32)
        self.key = RSAKey.generate_key(2048, parameters={"kid": secrets.token_hex(8)})
        self._codes: dict[str, dict[str, Any]] = {}
        self._tokens: dict[str, tuple[dict[str, Any], float]] = {}

    def provider(self) -> dict[str, Any]:
        """The ``oidc`` provider that points the engine at this OP (:func:`demo_provider`)."""
        return demo_provider(
            self.issuer, client_id=self.client_id, client_secret=self.client_secret
        )

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
        if query.get("client_id") != self.client_id or not query.get("redirect_uri"):
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
        if form.get("client_id") != self.client_id or not form.get("redirect_uri"):
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
        if client_id != self.client_id or not hmac.compare_digest(secret, self.client_secret):
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
        claims = {
            "iss": self.issuer,
            "aud": self.client_id,
            "iat": now,
            "exp": now + TOKEN_LIFETIME,
        }
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


@contextmanager
def serving(
    port: int = 0,
    *,
    host: str = "127.0.0.1",
    client_id: str = CLIENT_ID,
    client_secret: str = CLIENT_SECRET,
) -> Iterator[DemoOP]:
    """The demo provider served over HTTP on ``host``:``port`` (``0``: a free port) by
    uvicorn in a background thread, for a test: ``with serving() as op:``, then
    ``op.provider()`` in your config. Stopped when the block ends."""
    import uvicorn

    sock = bind(host, port, program="serving", pick_another="another port, or 0 for any")
    op = DemoOP(
        f"http://{host}:{sock.getsockname()[1]}", client_id=client_id, client_secret=client_secret
    )
    config = uvicorn.Config(op, lifespan="off", log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the demo provider did not start")
            time.sleep(0.01)
        yield op
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def banner(op: DemoOP, listening: str) -> str:
    """What the command prints at start: what it is, the credentials, how to use and stop it."""
    if (op.client_id, op.client_secret) == (CLIENT_ID, CLIENT_SECRET):
        call = f"demo_provider({op.issuer!r})"
    else:
        call = (
            f"demo_provider({op.issuer!r}, client_id={op.client_id!r}, "
            f"client_secret={op.client_secret!r})"
        )
    return "\n".join(
        [
            "The demo OpenID Provider: for development and tests only, never for production "
            "(anyone can sign in as anyone).",
            f"  issuer         {op.issuer}",
            f"  client_id      {op.client_id}",
            f"  client_secret  {op.client_secret}",
            "  redirect_uri   any (every one is accepted)",
            "Point sansio-auth at it:",
            "  from io_bindings.demo_op import demo_provider",
            f"  AuthConfig(providers=[{call}], ...)",
            f"Listening on {listening}; press Ctrl-C to stop.",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the demo provider on its own port until Ctrl-C."""
    env = os.environ
    parser = argparse.ArgumentParser(
        prog="python -m io_bindings.demo_op",
        description="Serve the demo OpenID Provider (docs/demo-provider.md): an OAuth/OIDC "
        "provider for development and tests, where anyone signs in as anyone. Never use "
        "it in production.",
    )
    parser.add_argument(
        "--host",
        default=env.get("DEMO_OP_HOST", "127.0.0.1"),
        help="the address to listen on (DEMO_OP_HOST; default 127.0.0.1)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(env.get("DEMO_OP_PORT", DEFAULT_PORT)),
        help=f"the port (DEMO_OP_PORT; default {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--issuer",
        default=env.get("DEMO_OP_ISSUER"),
        help="the issuer URL, when clients reach it by another name than "
        "http://<host>:<port> (DEMO_OP_ISSUER)",
    )
    parser.add_argument(
        "--client-id",
        default=env.get("DEMO_OP_CLIENT_ID", CLIENT_ID),
        help=f"the one client's id (DEMO_OP_CLIENT_ID; default {CLIENT_ID})",
    )
    parser.add_argument(
        "--client-secret", default=env.get("DEMO_OP_CLIENT_SECRET", CLIENT_SECRET),
        help=f"its secret (DEMO_OP_CLIENT_SECRET; default {CLIENT_SECRET})",
    )  # fmt: skip
    args = parser.parse_args(argv)
    another = f"--port, e.g. --port {args.port + 1}"
    sock = bind(args.host, args.port, program="demo_op", pick_another=another)
    listening = f"http://{args.host}:{sock.getsockname()[1]}"
    op = DemoOP(
        args.issuer or listening, client_id=args.client_id, client_secret=args.client_secret
    )
    print(banner(op, listening), flush=True)
    serve_until_stopped(op, sock, lifespan="off", log_level="warning")
    print("The demo provider stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
