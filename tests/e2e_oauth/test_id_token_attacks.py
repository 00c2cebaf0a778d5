"""Forged ID tokens and userinfo answers (through the tampering proxy, one change each from
the honest baseline that ``test_sign_in_through_the_honest_proxy`` signs in with). Each ends
on the error page with ``error=Configuration``, no session cookie, no ``sign_in`` event, and
the reason in the server log."""

from __future__ import annotations

import time

import pytest

from tests.e2e_oauth.harness import Browser, OAuthServer, assert_refused, assert_signed_in
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


def test_max_age_sent_and_an_old_auth_time(
    server: OAuthServer, client: Browser, proxy: TamperingProxy
) -> None:
    """OpenID Connect Core §3.1.3.7: ``max_age=60`` was sent (the sign-in's query, as
    Auth.js's ``signIn(id, {}, {max_age: 60})``) and the user logged in an hour ago."""
    answer = client.authorize("tamper", client.start("tamper", "max_age=60"))
    proxy.tamper = Tamper(id_token_claims={"auth_time": int(time.time()) - 3600})
    mark = server.mark()
    response = client.deliver(answer)
    assert_refused(server, client, response, mark, cause="too long ago for `max_age`")


def test_max_age_sent_and_a_fresh_auth_time_signs_in(
    server: OAuthServer, client: Browser, proxy: TamperingProxy
) -> None:
    answer = client.authorize("tamper", client.start("tamper", "max_age=60"))
    mark = server.mark()
    response = client.deliver(answer)
    call = assert_signed_in(server, client, response, mark, "tamper", name="Alice Liddell")
    assert isinstance(call["profile"]["auth_time"], int)


def test_a_non_numeric_auth_time(
    server: OAuthServer, client: Browser, proxy: TamperingProxy
) -> None:
    attack(server, client, proxy, Tamper(id_token_claims={"auth_time": "x"}), "`auth_time` is not")


def test_a_1024_bit_rsa_key_is_refused(server: OAuthServer, client: Browser) -> None:
    """The provider's only key (its JWKS, its ID tokens) is RSA of 1024 bits."""
    answer = client.until_callback("small-key")
    mark = server.mark()
    response = client.deliver(answer)
    assert_refused(server, client, response, mark, cause="RSA of 1024 bits")
