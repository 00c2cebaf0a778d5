"""A real OpenID Provider for end-to-end tests: the npm ``oidc-provider`` package, run by node.

Use the session-scoped fixture (import it into a ``conftest.py`` or a test module)::

    from tests.oidc_op.provider import oidc_op, oidc_op_redirect_uris  # noqa: F401

    def test_sign_in(oidc_op: OpenIDProvider) -> None:
        client = oidc_op.register_client([f"{app_url}/auth/callback/op"])
        provider = oidc_op.provider_config(client)   # a custom provider mapping for AuthConfig
        ...                                           # the app redirects the browser to the OP
        callback = oidc_op.login(browser, authorize_location)   # login + consent, for real
        callback.send(browser)                                  # back to the app's callback

or start one with options of its own: ``with start_openid_provider(...) as op:``.

The package is installed with npm into ``~/.cache/sansio-auth/npm/oidc-provider`` (reused
when present; ``SANSIO_AUTH_NPM_CACHE`` moves it). Node and npm come from Debian
(``make system-deps``); when they are missing and we run as root, they are installed here.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
import secrets
import select
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from joserfc.jwk import RSAKey

from tests.oidc_op.login import AuthorizationResponse, LoginFailed, alogin, login

__all__ = [
    "AuthorizationResponse",
    "LoginFailed",
    "OIDCClient",
    "OpenIDProvider",
    "TestAccount",
    "install_oidc_provider",
    "ledger_digest",
    "oidc_op",
    "oidc_op_redirect_uris",
    "pkce_pair",
    "start_openid_provider",
]

PACKAGE = "oidc-provider"
MAJOR = 9
SPEC = f"{PACKAGE}@^{MAJOR}.13"
HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "server.mjs"
START_TIMEOUT = 30.0
DEFAULT_REDIRECT_URIS = ("http://app.test/auth/callback/op",)


@dataclass(frozen=True)
class TestAccount:
    """The user the login helper signs in as (its claims come from ``findAccount``)."""

    __test__ = False  # not a pytest test class

    sub: str = "alice"
    email: str = "alice@example.com"
    email_verified: bool = True
    name: str = "Alice Liddell"
    given_name: str = "Alice"
    family_name: str = "Liddell"

    def claims(self) -> dict[str, Any]:
        """The claims the OP releases for this account (``sub`` aside)."""
        return {
            "email": self.email,
            "email_verified": self.email_verified,
            "name": self.name,
            "given_name": self.given_name,
            "family_name": self.family_name,
        }


@dataclass(frozen=True)
class OIDCClient:
    """A client registered at the OP."""

    client_id: str
    client_secret: str | None
    token_endpoint_auth_method: str
    redirect_uris: tuple[str, ...]

    def auth(self) -> tuple[dict[str, str], dict[str, str]]:
        """``(headers, form fields)`` that authenticate this client at the token endpoint."""
        if self.token_endpoint_auth_method == "client_secret_basic":
            pair = f"{_form_quote(self.client_id)}:{_form_quote(self.client_secret or '')}"
            return {"authorization": "Basic " + base64.b64encode(pair.encode()).decode()}, {}
        if self.token_endpoint_auth_method == "client_secret_post":
            return {}, {"client_id": self.client_id, "client_secret": self.client_secret or ""}
        return {}, {"client_id": self.client_id}


@dataclass
class OpenIDProvider:
    """A running OP: where it is, its clients, its user, and helpers to drive it."""

    issuer: str
    clients: dict[str, OIDCClient]
    """The static clients by ``token_endpoint_auth_method``: ``client_secret_basic``,
    ``client_secret_post`` and ``none`` (public, PKCE required)."""
    account: TestAccount
    signing_key: dict[str, Any]
    """The OP's private RS256 JWK (for tests that forge tokens the OP could have signed)."""
    log_path: Path
    registered: list[OIDCClient] = field(default_factory=list)

    @property
    def discovery_url(self) -> str:
        """``{issuer}/.well-known/openid-configuration``."""
        return f"{self.issuer}/.well-known/openid-configuration"

    @property
    def authorization_endpoint(self) -> str:
        return f"{self.issuer}/auth"

    @property
    def token_endpoint(self) -> str:
        return f"{self.issuer}/token"

    @property
    def userinfo_endpoint(self) -> str:
        return f"{self.issuer}/me"

    @property
    def jwks_uri(self) -> str:
        return f"{self.issuer}/jwks"

    @property
    def log(self) -> str:
        """What node printed so far."""
        return self.log_path.read_text(errors="replace")

    def ledger(self) -> list[dict[str, Any]]:
        """The token-endpoint answers so far, oldest first (an OP started with ``ledger=True``):
        ``grant`` (its type), ``presented`` and ``issued`` (:func:`ledger_digest` of the refresh
        token sent and of the one issued, or ``None``), ``grant_id``, ``error`` when refused,
        ``by`` (the ``ledger_header`` the request carried), ``at`` (Unix seconds); and
        ``{"revoked": <grant id>, "at": ...}`` for each grant the OP revoked."""
        prefix = "ledger "
        return [
            json.loads(line.removeprefix(prefix))
            for line in self.log.splitlines()
            if line.startswith(prefix)
        ]

    def client(self, method: str = "client_secret_basic") -> OIDCClient:
        """The static client that authenticates with ``method``."""
        return self.clients[method]

    def register_client(
        self,
        redirect_uris: Sequence[str],
        *,
        token_endpoint_auth_method: str = "client_secret_basic",
        **metadata: Any,
    ) -> OIDCClient:
        """Register a client (dynamic registration, RFC 7591), e.g. once the app's port is known."""
        document = {
            "redirect_uris": list(redirect_uris),
            "token_endpoint_auth_method": token_endpoint_auth_method,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            **metadata,
        }
        response = httpx.post(f"{self.issuer}/reg", json=document, timeout=10)
        if response.status_code != 201:
            raise RuntimeError(f"registration refused: {response.status_code} {response.text}")
        answer = response.json()
        client = OIDCClient(
            client_id=answer["client_id"],
            client_secret=answer.get("client_secret"),
            token_endpoint_auth_method=answer["token_endpoint_auth_method"],
            redirect_uris=tuple(answer["redirect_uris"]),
        )
        self.registered.append(client)
        return client

    def provider_config(self, client: OIDCClient, **options: Any) -> dict[str, Any]:
        """A custom ``oidc`` provider mapping for ``AuthConfig(providers=[...])`` (id ``op``)."""
        config: dict[str, Any] = {
            "id": "op",
            "name": "Test OP",
            "type": "oidc",
            "issuer": self.issuer,
            "client_id": client.client_id,
            "client": {"token_endpoint_auth_method": client.token_endpoint_auth_method},
        }
        if client.client_secret is not None:
            config["client_secret"] = client.client_secret
        return {**config, **options}

    def authorization_url(
        self,
        client: OIDCClient,
        *,
        redirect_uri: str | None = None,
        scope: str = "openid email profile",
        **params: str,
    ) -> str:
        """An authorization request URL (``response_type=code``; add state, nonce, PKCE...)."""
        query = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": redirect_uri or client.redirect_uris[0],
            "scope": scope,
            **params,
        }
        return f"{self.authorization_endpoint}?{urlencode(query)}"

    def login(
        self,
        http: httpx.Client,
        authorization_url: str,
        *,
        user: str | None = None,
        deny: bool = False,
    ) -> AuthorizationResponse:
        """Drive the OP's login and consent pages from ``authorization_url`` with ``http``
        (whose cookie jar keeps the OP session); the response the OP sends back to the client.

        ``deny=True`` aborts at the first page (the OP answers ``error=access_denied``).
        """
        return login(http, self.issuer, authorization_url, user or self.account.sub, deny=deny)

    async def alogin(
        self,
        http: httpx.AsyncClient,
        authorization_url: str,
        *,
        user: str | None = None,
        deny: bool = False,
    ) -> AuthorizationResponse:
        """:meth:`login` with an ``httpx.AsyncClient``."""
        return await alogin(
            http, self.issuer, authorization_url, user or self.account.sub, deny=deny
        )


def pkce_pair() -> tuple[str, str]:
    """A PKCE ``(code_verifier, S256 code_challenge)``."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def ledger_digest(token: str) -> str:
    """How :meth:`OpenIDProvider.ledger` names a refresh token (never the token itself)."""
    return hashlib.sha256(token.encode()).hexdigest()[:16]


def npm_cache() -> Path:
    """Where npm packages for the tests are installed."""
    root = os.environ.get("SANSIO_AUTH_NPM_CACHE", "~/.cache/sansio-auth/npm")
    return Path(root).expanduser()


def ensure_node() -> None:
    """Node.js 20+ and npm on PATH; installed from Debian when missing and we are root."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            pytest.fail("node and npm are needed for the OpenID Provider: run `make system-deps`")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "nodejs", "npm"]
        subprocess.run(install, check=True, env=env)
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    if int(version.stdout.strip().lstrip("v").split(".")[0]) < 20:
        pytest.fail(f"oidc-provider {MAJOR}.x needs Node.js 20 or newer, found {version.stdout}")


def install_oidc_provider() -> Path:
    """Install ``oidc-provider`` (major ``MAJOR``) into the npm cache once; its entry module."""
    ensure_node()
    prefix = npm_cache() / PACKAGE
    prefix.mkdir(parents=True, exist_ok=True)
    manifest = prefix / "node_modules" / PACKAGE / "package.json"
    with open(prefix / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one installer at a time across test processes
        if _installed_major(manifest) != MAJOR:
            command = ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", SPEC]
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
            if done.returncode != 0 or _installed_major(manifest) != MAJOR:
                pytest.fail(f"npm install {SPEC} failed:\n{done.stdout}\n{done.stderr}")
    main: str = json.loads(manifest.read_text()).get("main", "lib/index.js")
    return manifest.parent / main


def _installed_major(manifest: Path) -> int | None:
    try:
        return int(json.loads(manifest.read_text())["version"].split(".")[0])
    except (OSError, ValueError, KeyError):
        return None


def _static_clients(redirect_uris: Sequence[str]) -> dict[str, OIDCClient]:
    def make(method: str, client_id: str) -> OIDCClient:
        secret = None if method == "none" else f"{client_id}-secret-{secrets.token_hex(8)}"
        return OIDCClient(client_id, secret, method, tuple(redirect_uris))

    return {
        "client_secret_basic": make("client_secret_basic", "basic-client"),
        "client_secret_post": make("client_secret_post", "post-client"),
        "none": make("none", "public-client"),
    }


def _client_metadata(client: OIDCClient) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "client_id": client.client_id,
        "redirect_uris": list(client.redirect_uris),
        "token_endpoint_auth_method": client.token_endpoint_auth_method,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }
    if client.client_secret is not None:
        metadata["client_secret"] = client.client_secret
    return metadata


@contextmanager
def start_openid_provider(
    redirect_uris: Sequence[str] = DEFAULT_REDIRECT_URIS,
    *,
    account: TestAccount | None = None,
    conform_id_token_claims: bool = False,
    extra_clients: Sequence[Mapping[str, Any]] = (),
    ttl: Mapping[str, int] | None = None,
    ledger: bool = False,
    ledger_header: str | None = None,
) -> Iterator[OpenIDProvider]:
    """Run an OP on 127.0.0.1 (a free port) until the block ends.

    ``conform_id_token_claims=False`` puts the user's claims in the ID token too (as most
    providers do); ``True`` keeps them for the userinfo endpoint only. ``extra_clients`` are
    raw ``oidc-provider`` client metadata; ``ttl`` overrides lifetimes in seconds
    (e.g. ``{"IdToken": 60}``). ``ledger=True`` logs every token-endpoint answer
    (:meth:`OpenIDProvider.ledger`), with the value of the request header ``ledger_header``.
    """
    module = install_oidc_provider()
    account = account or TestAccount()
    clients = _static_clients(redirect_uris)
    key = RSAKey.generate_key(parameters={"alg": "RS256", "use": "sig"}, auto_kid=True)
    signing_key = key.as_dict(private=True)
    config = {
        "module": str(module),
        "port": 0,
        "clients": [_client_metadata(c) for c in clients.values()] + list(extra_clients),
        "jwks": [signing_key],
        "cookie_keys": [secrets.token_hex(16)],
        "accounts": {account.sub: account.claims()},
        "conform_id_token_claims": conform_id_token_claims,
        "ledger": ledger,
        "ledger_header": ledger_header,
        **({"ttl": dict(ttl)} if ttl else {}),
    }
    with tempfile.TemporaryDirectory(prefix="oidc-op-") as workdir:
        config_path = Path(workdir) / "config.json"
        config_path.write_text(json.dumps(config))
        log_path = Path(workdir) / "node.log"
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                ["node", str(SCRIPT), str(config_path)],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )
        try:
            issuer = _wait_for_issuer(process, log_path)
            yield OpenIDProvider(issuer, clients, account, signing_key, log_path)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            assert process.stdout is not None
            process.stdout.close()


def _wait_for_issuer(process: subprocess.Popen[str], log_path: Path) -> str:
    """The issuer the server printed, once discovery answers."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], START_TIMEOUT)
    line = process.stdout.readline() if ready else ""  # printed once it listens
    if not line:
        raise RuntimeError(f"the OpenID Provider did not start:\n{log_path.read_text()}")
    issuer: str = json.loads(line)["issuer"]
    response = httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=START_TIMEOUT)
    response.raise_for_status()
    return issuer


def _form_quote(value: str) -> str:
    """RFC 6749 §2.3.1: client credentials are form-urlencoded before Basic encoding."""
    return urlencode({"": value})[1:]


@pytest.fixture(scope="session")
def oidc_op_redirect_uris() -> Sequence[str]:
    """Redirect URIs of the OP's static clients; override this fixture to choose them
    (or register clients at run time with :meth:`OpenIDProvider.register_client`)."""
    return DEFAULT_REDIRECT_URIS


@pytest.fixture(scope="session")
def oidc_op(oidc_op_redirect_uris: Sequence[str]) -> Iterator[OpenIDProvider]:
    """A real OpenID Provider for the whole test session (see the module docstring)."""
    with start_openid_provider(oidc_op_redirect_uris) as op:
        yield op
