"""Forged ID tokens and userinfo answers (through the tampering proxy, one change each from
the honest baseline that ``test_sign_in_through_the_honest_proxy`` signs in with). Each ends
on the error page with ``error=Configuration``, no session cookie, no ``sign_in`` event, and
the reason in the server log."""

from __future__ import annotations

import time

import pytest

from tests.e2e_oauth.harness import Browser, OAuthServer, assert_refused
from tests.e2e_oauth.tampering_proxy import Tamper, TamperingProxy

pytestmark = pytest.mark.e2e


def attack(
    server: OAuthServer, client: Browser, proxy: TamperingProxy, tamper: Tamper, cause: str
) -> None:
    provider_id = "tamper-userinfo" if tamper.userinfo_claims else "tamper"
    answer = client.until_callback(provider_id)
    proxy.tamper = tamper
    mark = server.mark()
    response = client.deliver(answer)
    assert_refused(server, client, response, mark, cause=cause)


def test_wrong_nonce(server: OAuthServer, client: Browser, proxy: TamperingProxy) -> None:
    tamper = Tamper(id_token_claims={"nonce": "a-nonce-from-another-sign-in"})
    attack(server, client, proxy, tamper, "`nonce` does not match")


def test_iss_mismatch(server: OAuthServer, client: Browser, proxy: TamperingProxy) -> None:
    tamper = Tamper(id_token_claims={"iss": "https://attacker.example"})
    attack(server, client, proxy, tamper, "`iss` is not the issuer")


def test_expired_id_token(server: OAuthServer, client: Browser, proxy: TamperingProxy) -> None:
    now = int(time.time())
    tamper = Tamper(id_token_claims={"iat": now - 7200, "exp": now - 3600})
    attack(server, client, proxy, tamper, "has expired")


def test_bad_signature(server: OAuthServer, client: Browser, proxy: TamperingProxy) -> None:
    """Signed by another key under the OP's ``kid``."""
    attack(server, client, proxy, Tamper(signing="foreign-key"), "signature is invalid")


def test_unknown_kid(server: OAuthServer, client: Browser, proxy: TamperingProxy) -> None:
    attack(server, client, proxy, Tamper(signing="unknown-kid"), "no key in the JWKS fits")


def test_alg_none(server: OAuthServer, client: Browser, proxy: TamperingProxy) -> None:
    attack(server, client, proxy, Tamper(signing="alg-none"), "unsigned (alg none)")


def test_hmac_keyed_with_the_public_key(
    server: OAuthServer, client: Browser, proxy: TamperingProxy
) -> None:
    attack(server, client, proxy, Tamper(signing="hs256-public-key"), "symmetric HS256")


def test_audience_mismatch(server: OAuthServer, client: Browser, proxy: TamperingProxy) -> None:
    tamper = Tamper(id_token_claims={"aud": "another-client"})
    attack(server, client, proxy, tamper, "not for this client (`aud`)")


def test_userinfo_sub_mismatch(server: OAuthServer, client: Browser, proxy: TamperingProxy) -> None:
    tamper = Tamper(userinfo_claims={"sub": "mallory"})
    attack(server, client, proxy, tamper, "userinfo `sub` is not the ID token's")
