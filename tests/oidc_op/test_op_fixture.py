"""The OpenID Provider fixture works: discovery and JWKS through our h11 client, and full
authorization code flows driven by hand with httpx (login, consent, token, ID token)."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import KeySet

from io_bindings.http import AnyioBackend, HTTPClient
from sansio_auth.events import OutboundRequest
from tests.oidc_op.provider import (
    AuthorizationResponse,
    OIDCClient,
    OpenIDProvider,
    TestAccount,
    ledger_digest,
    pkce_pair,
    start_openid_provider,
)

pytestmark = pytest.mark.e2e
METHODS = ["client_secret_basic", "client_secret_post", "none"]


async def fetch_json(client: HTTPClient, url: str) -> Any:
    response = await client.send(OutboundRequest(method="GET", url=url))
    assert response.status == 200, response.body
    assert "json" in response.headers["content-type"]
    return json.loads(response.body)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_discovery_and_jwks_through_our_client(oidc_op: OpenIDProvider) -> None:
    async with HTTPClient(AnyioBackend(), proxy_env={}) as client:
        discovery = await fetch_json(client, oidc_op.discovery_url)
        jwks = await fetch_json(client, discovery["jwks_uri"])
        assert client.idle_connections() == 1  # both over one kept-alive connection
    assert discovery["issuer"] == oidc_op.issuer
    assert discovery["authorization_endpoint"] == oidc_op.authorization_endpoint
    assert discovery["token_endpoint"] == oidc_op.token_endpoint
    assert discovery["userinfo_endpoint"] == oidc_op.userinfo_endpoint
    assert discovery["authorization_response_iss_parameter_supported"] is True
    assert "form_post" in discovery["response_modes_supported"]
    assert discovery["code_challenge_methods_supported"] == ["S256"]
    assert set(METHODS) <= set(discovery["token_endpoint_auth_methods_supported"])
    assert "RS256" in discovery["id_token_signing_alg_values_supported"]
    (key,) = jwks["keys"]
    assert key["kid"] == oidc_op.signing_key["kid"]
    assert key["n"] == oidc_op.signing_key["n"]
    assert "d" not in key


def exchange_code(
    op: OpenIDProvider, client: OIDCClient, code: str, verifier: str, redirect_uri: str
) -> dict[str, Any]:
    headers, auth_fields = client.auth()
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "code_verifier": verifier,
        **auth_fields,
    }
    response = httpx.post(op.token_endpoint, data=form, headers=headers)
    assert response.status_code == 200, response.text
    tokens: dict[str, Any] = response.json()
    return tokens


def verified_id_token(op: OpenIDProvider, id_token: str) -> dict[str, Any]:
    keys = KeySet.import_key_set(httpx.get(op.jwks_uri).json())
    token = jwt.decode(id_token, keys, algorithms=["RS256"])
    assert token.header["kid"] == op.signing_key["kid"]
    return dict(token.claims)


def start(op: OpenIDProvider, client: OIDCClient, **params: str) -> tuple[str, dict[str, str]]:
    """An authorization URL with state, nonce and PKCE; and the values to check against."""
    verifier, challenge = pkce_pair()
    checks = {"state": secrets.token_urlsafe(16), "nonce": secrets.token_urlsafe(16)}
    url = op.authorization_url(
        client, code_challenge=challenge, code_challenge_method="S256", **checks, **params
    )
    return url, {**checks, "verifier": verifier}


@pytest.mark.parametrize("method", METHODS)
def test_code_flow_by_hand(oidc_op: OpenIDProvider, method: str) -> None:
    client = oidc_op.client(method)
    url, checks = start(oidc_op, client)
    with httpx.Client() as browser:
        answer = oidc_op.login(browser, url)
    assert answer.method == "GET"
    assert answer.redirect_uri == client.redirect_uris[0]
    assert answer.params["state"] == checks["state"]
    assert answer.params["iss"] == oidc_op.issuer  # RFC 9207
    tokens = exchange_code(
        oidc_op, client, answer.params["code"], checks["verifier"], answer.redirect_uri
    )
    assert tokens["token_type"] == "Bearer"
    claims = verified_id_token(oidc_op, tokens["id_token"])
    assert claims["iss"] == oidc_op.issuer
    assert claims["aud"] == client.client_id
    assert claims["nonce"] == checks["nonce"]
    assert claims["sub"] == oidc_op.account.sub
    assert claims["email"] == oidc_op.account.email
    assert claims["name"] == oidc_op.account.name
    assert claims["exp"] > time.time() > claims["iat"] - 5
    userinfo = httpx.get(
        oidc_op.userinfo_endpoint, headers={"authorization": f"Bearer {tokens['access_token']}"}
    ).json()
    assert userinfo["sub"] == oidc_op.account.sub
    assert userinfo["email_verified"] is True


def test_form_post_response_mode(oidc_op: OpenIDProvider) -> None:
    client = oidc_op.client("client_secret_post")
    url, checks = start(oidc_op, client, response_mode="form_post")
    with httpx.Client() as browser:
        answer = oidc_op.login(browser, url)
    assert answer.method == "POST"
    assert answer.url == client.redirect_uris[0]
    assert set(answer.params) == {"code", "state", "iss"}
    assert answer.params["state"] == checks["state"]
    exchange_code(oidc_op, client, answer.params["code"], checks["verifier"], answer.url)


def test_denied_consent_answers_access_denied(oidc_op: OpenIDProvider) -> None:
    url, checks = start(oidc_op, oidc_op.client())
    with httpx.Client() as browser:
        answer = oidc_op.login(browser, url, deny=True)
    assert answer.params["error"] == "access_denied"
    assert answer.params["state"] == checks["state"]
    assert answer.params["iss"] == oidc_op.issuer


def test_only_public_clients_must_use_pkce(oidc_op: OpenIDProvider) -> None:
    with httpx.Client() as browser:
        public = oidc_op.login(browser, oidc_op.authorization_url(oidc_op.client("none")))
        confidential = oidc_op.login(browser, oidc_op.authorization_url(oidc_op.client()))
    assert public.params["error"] == "invalid_request"
    assert "PKCE" in public.params["error_description"]
    assert "code" in confidential.params


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_registered_client_and_async_login(oidc_op: OpenIDProvider) -> None:
    redirect_uri = "http://127.0.0.1:54321/auth/callback/op"
    client = oidc_op.register_client(
        [redirect_uri], token_endpoint_auth_method="client_secret_post"
    )
    assert client.client_secret
    url, checks = start(oidc_op, client)
    async with httpx.AsyncClient() as browser:
        first = await oidc_op.alogin(browser, url)
        again = await oidc_op.alogin(browser, start(oidc_op, client)[0])  # OP session kept
    assert first.redirect_uri == redirect_uri
    exchange_code(oidc_op, client, first.params["code"], checks["verifier"], redirect_uri)
    assert again.params["code"] != first.params["code"]


def test_provider_config_for_the_engine(oidc_op: OpenIDProvider) -> None:
    public = oidc_op.provider_config(oidc_op.client("none"), checks=["pkce", "nonce"])
    assert public == {
        "id": "op",
        "name": "Test OP",
        "type": "oidc",
        "issuer": oidc_op.issuer,
        "client_id": "public-client",
        "client": {"token_endpoint_auth_method": "none"},
        "checks": ["pkce", "nonce"],
    }
    confidential = oidc_op.provider_config(oidc_op.client("client_secret_basic"))
    assert confidential["client_secret"] == oidc_op.client("client_secret_basic").client_secret


def test_authorization_response_is_delivered_as_the_browser_would() -> None:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200)

    transport = httpx.MockTransport(record)
    with httpx.Client(transport=transport) as browser:
        AuthorizationResponse("GET", "http://app.test/cb?code=c&state=s", {}).send(browser)
        AuthorizationResponse("POST", "http://app.test/cb", {"code": "c", "state": "s"}).send(
            browser
        )
    assert [(r.method, str(r.url)) for r in seen] == [
        ("GET", "http://app.test/cb?code=c&state=s"),
        ("POST", "http://app.test/cb"),
    ]
    assert seen[1].content == b"code=c&state=s"


def test_an_op_with_options_of_its_own() -> None:
    account = TestAccount(sub="bob", email="bob@example.org", name="Bob")
    with start_openid_provider(
        ["http://app.test/cb"], account=account, conform_id_token_claims=True, ttl={"IdToken": 30}
    ) as op:
        client = op.client("client_secret_basic")
        url, checks = start(op, client)
        with httpx.Client() as browser:
            answer = op.login(browser, url)
        assert answer.redirect_uri == "http://app.test/cb"
        code = answer.params["code"]
        tokens = exchange_code(op, client, code, checks["verifier"], answer.redirect_uri)
        claims = verified_id_token(op, tokens["id_token"])
        bearer = {"authorization": f"Bearer {tokens['access_token']}"}
        userinfo = httpx.get(op.userinfo_endpoint, headers=bearer).json()
    assert claims["sub"] == "bob"
    assert "email" not in claims  # conformant: claims only from userinfo
    assert claims["exp"] - claims["iat"] == 30
    assert userinfo == {"sub": "bob", **account.claims()}


def refresh(op: OpenIDProvider, client: OIDCClient, token: str, by: str) -> httpx.Response:
    headers, auth_fields = client.auth()
    form = {"grant_type": "refresh_token", "refresh_token": token, **auth_fields}
    return httpx.post(op.token_endpoint, data=form, headers={**headers, "x-asked-by": by})


def test_the_ledger_names_every_refresh_token_presented_and_issued() -> None:
    with start_openid_provider(
        ["http://app.test/cb"], ledger=True, ledger_header="x-asked-by"
    ) as op:
        client = op.client("client_secret_basic")
        url, checks = start(op, client, scope="openid offline_access", prompt="consent")
        with httpx.Client() as browser:
            answer = op.login(browser, url)
        first = exchange_code(
            op, client, answer.params["code"], checks["verifier"], answer.redirect_uri
        )
        second = refresh(op, client, first["refresh_token"], "node-a").json()
        reused = refresh(op, client, first["refresh_token"], "node-b")
        ledger, log = op.ledger(), op.log
    assert reused.status_code == 400
    assert first["refresh_token"] not in log  # digests only
    issued, rotated, revoked, refused = ledger  # the OP revokes the grant, then answers
    assert issued["grant"] == "authorization_code"
    assert issued["presented"] is None
    assert issued["issued"] == ledger_digest(first["refresh_token"])
    assert rotated["grant"] == "refresh_token"
    assert rotated["presented"] == ledger_digest(first["refresh_token"])
    assert rotated["issued"] == ledger_digest(second["refresh_token"])
    assert rotated["by"] == "node-a"
    assert rotated["grant_id"] == issued["grant_id"]
    assert refused["presented"] == ledger_digest(first["refresh_token"])
    assert refused["error"] == "invalid_grant"
    assert refused["by"] == "node-b"
    assert revoked == {"revoked": issued["grant_id"], "at": revoked["at"]}
    assert issued["at"] <= rotated["at"] <= revoked["at"] <= refused["at"]
