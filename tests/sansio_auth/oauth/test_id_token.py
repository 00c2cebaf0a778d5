"""ID token validation: algorithms, key selection, signature, claims."""

import json

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from joserfc import jws

from sansio_auth.oauth.id_token import (
    IDTokenError,
    UnknownKey,
    allowed_algorithms,
    check_claims,
    read_header,
    select_key,
    verify_signature,
)
from tests.sansio_auth.oauth.fake_op import b64url, ec_key, rsa_key

NOW = 1_800_000_000
CLAIMS = {"iss": "https://op", "sub": "u1", "aud": "cid", "exp": NOW + 60, "iat": NOW}


def jwk(kid, **extra):
    return {**rsa_key(kid).as_dict(private=False), **extra}


def token(claims=CLAIMS, kid="key-1", alg="RS256", key=None):
    header = {"alg": alg, "kid": kid} if kid else {"alg": alg}
    return jws.serialize_compact(header, json.dumps(claims), key or rsa_key("key-1"), [alg])


def test_allowed_algorithms():
    assert allowed_algorithms(None, None) == ("RS256",)
    assert allowed_algorithms(None, ["RS256", "HS256", "none", "ES256"]) == ("RS256", "ES256")
    assert allowed_algorithms("PS256", ["RS256"]) == ("PS256",)
    assert allowed_algorithms(None, ["HS256"]) == ()


def test_verify_with_kid_and_without():
    keys = [jwk("key-1"), jwk("key-2")]
    assert verify_signature(token(), keys, ["RS256"]) == CLAIMS
    with pytest.raises(IDTokenError, match="2 keys"):
        verify_signature(token(kid=None), keys, ["RS256"])  # ambiguous without a kid
    assert verify_signature(token(kid=None), [jwk("key-1")], ["RS256"]) == CLAIMS


def test_unknown_kid():
    with pytest.raises(UnknownKey):
        verify_signature(token(kid="key-1"), [jwk("key-2")], ["RS256"])


@pytest.mark.parametrize(
    "extra", [{"use": "enc"}, {"alg": "RS512"}, {"key_ops": ["encrypt"]}, {"key_ops": "verify"}]
)
def test_keys_not_for_this_signature_are_skipped(extra):
    with pytest.raises(UnknownKey):
        verify_signature(token(), [jwk("key-1", **extra)], ["RS256"])


def test_symmetric_keys_in_a_jwks_are_never_used():
    oct_jwk = {"kty": "oct", "k": b64url(b"k" * 32), "kid": "key-1"}
    with pytest.raises(UnknownKey):
        select_key({"alg": "RS256", "kid": "key-1"}, [oct_jwk])


def test_rsa_keys_under_2048_bits_are_refused():
    numbers = rsa.generate_private_key(65537, 1024).public_key().public_numbers()
    small = {
        "kty": "RSA",
        "kid": "key-1",
        "n": b64url(numbers.n.to_bytes(128)),
        "e": b64url(numbers.e.to_bytes(3)),
    }
    with pytest.raises(IDTokenError, match="RSA of 1024 bits"):
        verify_signature(token(), [small], ["RS256"])
    with pytest.raises(IDTokenError, match="RSA of 1024 bits"):
        select_key({"alg": "PS256"}, [small])


def test_ec_key_and_curve():
    key = ec_key("ec-1")
    signed = token(kid="ec-1", alg="ES256", key=key)
    assert verify_signature(signed, [key.as_dict(private=False)], ["ES256"]) == CLAIMS
    with pytest.raises(UnknownKey):
        verify_signature(signed, [{**key.as_dict(private=False), "crv": "P-384"}], ["ES256"])


def test_private_members_of_a_published_key_are_ignored():
    private = rsa_key("key-1").as_dict(private=True)
    assert verify_signature(token(), [private], ["RS256"]) == CLAIMS


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("a.b", "compact JWS"),
        ("a.b.c.d.e", "compact JWS"),
        ("!!!.e30.", "base64url"),
        (b64url(b"[1]") + ".e30.", "not a JSON object"),
        (b64url(b'{"alg":"none"}') + ".e30.", "alg none"),
        (b64url(b'{"alg":"NONE"}') + ".e30.", "alg none"),
        (b64url(b'{"alg":"HS256"}') + ".e30.x", "symmetric"),
        (b64url(b'{"alg":"RS384"}') + ".e30.x", "not one of RS256"),
        (b64url(b'{"alg":"RS256","kid":5}') + ".e30.x", "kid"),
        (b64url(b'{"alg":"RS256","crit":[null]}') + ".e30.x", "crit"),
    ],
)
def test_malformed_tokens(value, message):
    with pytest.raises(IDTokenError, match=message):
        verify_signature(value, [jwk("key-1")], ["RS256"])


def test_tampered_payload():
    head, _, signature = token().split(".")
    forged = b64url(json.dumps({**CLAIMS, "sub": "mallory"}).encode())
    with pytest.raises(IDTokenError, match="signature is invalid"):
        verify_signature(f"{head}.{forged}.{signature}", [jwk("key-1")], ["RS256"])


def test_read_header():
    assert read_header(token()) == {"alg": "RS256", "kid": "key-1"}


def check(changes=None, nonce=None, **kwargs):
    claims = {**CLAIMS, **(changes or {})}
    claims = {k: v for k, v in claims.items() if v is not None}
    check_claims(claims, issuer="https://op", client_id="cid", now=NOW, nonce=nonce, **kwargs)


def test_valid_claims():
    check()
    check({"aud": ["cid"]})
    check({"aud": ["cid", "api"], "azp": "cid"})
    check({"exp": NOW - 29, "iat": NOW + 29, "nbf": NOW + 29})
    check({"nonce": "n"}, nonce="n")
    check({"auth_time": NOW - 3600})  # no max_age sent: any past sign-in
    check({"auth_time": NOW - 60 - 30}, max_age=60)  # within the 30 s tolerance


@pytest.mark.parametrize(
    ("changes", "max_age", "message"),
    [
        ({"auth_time": NOW - 3600}, 60, "too long ago"),
        ({"auth_time": NOW - 91}, 60, "too long ago"),
        ({}, 60, "no `auth_time`"),
        ({"auth_time": "x"}, 60, "`auth_time` is not a number"),
        ({"auth_time": "x"}, None, "`auth_time` is not a number"),
        ({"auth_time": True}, None, "`auth_time` is not a number"),
    ],
)
def test_auth_time(changes, max_age, message):
    """OpenID Connect Core §3.1.3.7: with ``max_age`` sent, ``auth_time`` is required and
    must be recent enough; a non-numeric one is refused whatever was sent."""
    with pytest.raises(IDTokenError, match=message):
        check(changes, max_age=max_age)


@pytest.mark.parametrize(
    ("changes", "nonce", "message"),
    [
        ({"iss": "https://op/"}, None, "iss"),
        ({"iss": None}, None, "iss"),
        ({"sub": ""}, None, "sub"),
        ({"sub": 5}, None, "sub"),
        ({"aud": None}, None, "aud"),
        ({"aud": "other"}, None, "aud"),
        ({"aud": ["other", 5]}, None, "aud"),
        ({"aud": ["cid", "api"]}, None, "azp"),
        ({"azp": "api"}, None, "azp"),
        ({"exp": None}, None, "exp"),
        ({"exp": NOW - 30}, None, "expired"),
        ({"exp": "later"}, None, "exp"),
        ({"exp": True}, None, "exp"),
        ({"iat": None}, None, "iat"),
        ({"iat": NOW + 31}, None, "future"),
        ({"nbf": NOW + 31}, None, "not valid yet"),
        ({"nonce": "n"}, None, "none was sent"),
        ({}, "n", "nonce"),
        ({"nonce": "m"}, "n", "nonce"),
        ({"nonce": 5}, "n", "nonce"),
    ],
)
def test_invalid_claims(changes, nonce, message):
    with pytest.raises(IDTokenError, match=message):
        check(changes, nonce=nonce)
