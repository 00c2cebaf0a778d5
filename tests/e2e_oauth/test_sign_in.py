"""Sign-in through the real OP, on uvicorn (asyncio) and hypercorn (trio): every client
authentication method, PKCE, state, nonce, ``form_post``, RFC 9207 ``iss``, a plain OAuth 2.0
provider with a ``profile`` function, and the tampering proxy's honest baseline."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime

import httpx
import pytest

from tests.e2e_oauth.harness import (
    CHECK_COOKIES,
    Browser,
    OAuthServer,
    assert_signed_in,
    query,
    set_cookie_headers,
)
from tests.e2e_oauth.tampering_proxy import TamperingProxy
from tests.oidc_op.provider import OpenIDProvider

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("provider_id", ["op", "op-post", "op-public", "op-form"])
def test_oidc_sign_in(
    server: OAuthServer, client: Browser, oidc_op: OpenIDProvider, provider_id: str
) -> None:
    provider = server.providers[provider_id]
    checks = set(provider["checks"])
    mark = server.mark()
    started = client.post_sign_in(provider_id)
    url = started.headers["location"]
    sent = query(url)
    assert sent["client_id"] == provider["client_id"]
    assert sent["redirect_uri"] == f"{server.url}/auth/callback/{provider_id}"
    assert sent["response_type"] == "code"
    assert set(sent["scope"].split()) == {"openid", "profile", "email"}
    assert ("code_challenge" in sent) == ("pkce" in checks)
    assert sent.get("code_challenge_method", "S256") == "S256"
    assert ("state" in sent) == ("state" in checks)
    assert ("nonce" in sent) == ("nonce" in checks)
    assert sent.get("response_mode") == ("form_post" if provider_id == "op-form" else None)

    answer = client.authorize(provider_id, url)
    assert answer.method == ("POST" if provider_id == "op-form" else "GET")
    assert answer.params["iss"] == oidc_op.issuer  # RFC 9207, checked by the app
    assert answer.params.get("state") == sent.get("state")
    response = client.deliver(answer)
    form_post = provider_id == "op-form"
    assert_check_cookies(started, checks, cross_site=form_post, deleted=False)
    assert_check_cookies(response, checks, cross_site=form_post, deleted=True)

    call = assert_signed_in(server, client, response, mark, provider_id, name="Alice Liddell")
    claims = call["profile"]  # the ID token's
    assert claims["iss"] == oidc_op.issuer
    assert claims["aud"] == provider["client_id"]
    assert claims.get("nonce") == sent.get("nonce")
    assert claims["exp"] > time.time()
    account = call["account"]
    assert account["type"] == "oidc"
    assert account["id_token"].count(".") == 2
    assert set(account["scope"].split()) >= {"openid", "email", "profile"}


def test_oauth_provider_with_a_profile_function(
    server: OAuthServer, client: Browser, oidc_op: OpenIDProvider
) -> None:
    mark = server.mark()
    url = client.start("op-oauth")
    sent = query(url)
    assert sent["scope"] == "openid email profile"  # the configured one, no default added
    assert {"state", "code_challenge"} <= set(sent)
    assert "nonce" not in sent
    answer = client.authorize("op-oauth", url)
    assert answer.params["iss"] == oidc_op.issuer  # compared with the configured issuer
    response = client.deliver(answer)
    call = assert_signed_in(
        server, client, response, mark, "op-oauth", name="Alice Liddell (OAuth)"
    )
    assert call["profile"] == {"sub": "alice", **oidc_op.account.claims()}  # userinfo's
    assert call["account"]["type"] == "oauth"


def test_a_second_sign_in_replaces_the_session(server: OAuthServer, client: Browser) -> None:
    first = client.sign_in("op")
    assert first.status_code == 302
    mark = server.mark()
    response = client.sign_in("op-post")  # the OP remembers the user; another client, though
    assert_signed_in(server, client, response, mark, "op-post", name="Alice Liddell")


@pytest.mark.parametrize("provider_id", ["tamper", "tamper-userinfo"])
def test_sign_in_through_the_honest_proxy(
    server: OAuthServer, client: Browser, proxy: TamperingProxy, provider_id: str
) -> None:
    """The baseline every forged case departs from by exactly one change."""
    token_requests, userinfo_requests = proxy.hits["/token"], proxy.hits["/me"]
    mark = server.mark()
    response = client.sign_in(provider_id)
    call = assert_signed_in(server, client, response, mark, provider_id, name="Alice Liddell")
    assert proxy.hits["/token"] == token_requests + 1
    assert proxy.hits["/me"] == userinfo_requests + (provider_id == "tamper-userinfo")
    assert proxy.hits["/.well-known/openid-configuration"] >= 1
    assert proxy.hits["/jwks"] >= 1
    if provider_id == "tamper":
        assert call["profile"]["iss"] == proxy.url  # the re-signed ID token's claims
    else:
        assert call["profile"] == {"sub": "alice", **client.op.account.claims()}


def assert_check_cookies(
    response: httpx.Response, checks: set[str], *, cross_site: bool, deleted: bool
) -> None:
    """``response`` sets (or deletes) exactly the cookies of ``checks``: ``HttpOnly``, path
    ``/``, 15 minutes; ``SameSite=None; Secure`` when the OP POSTs the answer back from its
    own site (``form_post``), else ``SameSite=Lax`` (and not ``Secure`` on http)."""
    names = tuple(CHECK_COOKIES.values())
    headers = set_cookie_headers(response, names)
    assert set(headers) == {CHECK_COOKIES[check] for check in checks}, headers
    for header in headers.values():
        attributes = {part.strip().lower() for part in header.split(";")[1:]}
        assert {"httponly", "path=/"} <= attributes, header
        assert ("max-age=0" in attributes) == deleted, header
        if not deleted:
            [expires] = [a.partition("=")[2] for a in attributes if a.startswith("expires=")]
            lifetime = parsedate_to_datetime(expires).timestamp() - time.time()
            assert 900 - 5 < lifetime <= 900, header
        if cross_site:
            assert {"samesite=none", "secure"} <= attributes, header
        else:
            assert "samesite=lax" in attributes, header
            assert "secure" not in attributes, header
