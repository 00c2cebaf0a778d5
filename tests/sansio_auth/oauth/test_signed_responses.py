"""HMAC ID tokens keyed by the client secret (OIDC Core §10.1) and signed userinfo (§5.3.2).

HMAC is accepted only from a provider that declares it (``id_token_signed_response_alg``),
never because the issuer advertises it, never ``none``; a signed userinfo response is
verified against the issuer's JWKS like an ID token and must name the issuer and client.
"""

import pytest

from sansio_auth.events import HTTPResponse
from tests.sansio_auth.oauth.fake_op import FakeOP, assert_failed, assert_signed_in, build, sign_in

CHECKS = {"authjs.pkce.code_verifier"}
HMAC_METADATA = {"id_token_signing_alg_values_supported": ["HS256", "HS384", "HS512", "RS256"]}


@pytest.mark.parametrize("alg", ["HS256", "HS384", "HS512"])
def test_a_declared_hmac_id_token_keyed_by_the_client_secret(alg):
    op = FakeOP(signing="client-secret", signing_alg=alg, metadata=HMAC_METADATA)
    pair = build(op, client={"id_token_signed_response_alg": alg})
    assert_signed_in(pair, sign_in(pair.browser, op))
    assert op.count("jwks") == 0  # the key is the client secret, not the JWKS


def test_hmac_is_refused_from_a_provider_that_did_not_declare_it():
    op = FakeOP(signing="client-secret", signing_alg="HS256", metadata=HMAC_METADATA)
    pair = build(op)  # the issuer advertises HS256: not enough
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="symmetric HS256")


def test_hmac_with_the_wrong_key_is_refused():
    op = FakeOP(signing="client-secret", signing_alg="HS256", hmac_key="another client's secret")
    pair = build(op, client={"id_token_signed_response_alg": "HS256"})
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="signature is invalid")


def test_an_unsigned_token_is_refused_even_when_hmac_is_declared():
    op = FakeOP(signing="none")
    pair = build(op, client={"id_token_signed_response_alg": "HS256"})
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="alg none")


@pytest.mark.parametrize(
    ("signing", "alg", "because"),
    [
        ("client-secret", "HS512", "alg HS512 is not one of HS256"),
        ("valid", "RS256", "alg RS256 is not one of HS256"),
    ],
)
def test_only_the_declared_algorithm(signing, alg, because):
    op = FakeOP(signing=signing, signing_alg=alg)
    pair = build(op, client={"id_token_signed_response_alg": "HS256"})
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because=because)


def userinfo_op(**changes):
    """An OP whose userinfo (the profile: ``id_token=False``) is a signed JWT."""
    claims = {"userinfo_only": "yes", **changes.pop("userinfo_claims", {})}
    return FakeOP(signed_userinfo=True, userinfo_claims=claims, **changes)


def test_a_signed_userinfo_response_is_verified_and_used():
    op = userinfo_op()
    pair = build(op, id_token=False, client={"userinfo_signed_response_alg": "RS256"})
    event = assert_signed_in(pair, sign_in(pair.browser, op))
    assert event["profile"]["userinfo_only"] == "yes"  # the profile is the verified userinfo
    assert op.count("jwks") == 1


def test_a_signed_userinfo_response_needs_no_declaration():
    op = userinfo_op()
    pair = build(op, id_token=False)
    assert_signed_in(pair, sign_in(pair.browser, op))


@pytest.mark.parametrize(
    ("changes", "because"),
    [
        ({"userinfo_signing": "none"}, "the signed userinfo is unsigned (alg none)"),
        ({"userinfo_signing": "bad-signature"}, "the signed userinfo's signature is invalid"),
        ({"userinfo_claims": {"iss": "https://evil.example"}}, "signed userinfo's `iss`"),
        ({"userinfo_claims": {"aud": "another-client"}}, "signed userinfo is not for this client"),
        ({"userinfo_claims": {"aud": None}}, "signed userinfo is not for this client"),
        (
            {"userinfo_signing": "client-secret", "userinfo_signing_alg": "HS256"},
            "signed userinfo uses symmetric HS256",
        ),
        ({"userinfo_claims": {"sub": "mallory"}}, "userinfo `sub` is not the ID token's"),
    ],
)
def test_a_bad_signed_userinfo_response_is_refused(changes, because):
    op = userinfo_op(**changes)
    pair = build(op, id_token=False)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because=because)


def test_an_encrypted_userinfo_response_is_refused():
    jwe = HTTPResponse(
        status=200,
        headers={"content-type": "application/jwt; charset=utf-8"},
        body=b"eyJhbGciOiJSU0EtT0FFUCJ9.a2V5.aXY.Y2lwaGVy.dGFn",
    )
    op = userinfo_op(answers={"userinfo": jwe})
    pair = build(op, id_token=False)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="not a compact JWS")
