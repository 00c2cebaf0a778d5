"""OIDC sign-in against the in-memory OP: the ID token and userinfo checks, key rotation."""

import pytest

from tests.sansio_auth.driver import ORIGIN, written
from tests.sansio_auth.oauth.fake_op import (
    CLIENT_ID,
    FakeOP,
    assert_failed,
    assert_signed_in,
    build,
    sign_in,
)

SESSION = "authjs.session-token"
CHECKS = {"authjs.pkce.code_verifier"}


def test_wrong_nonce():
    op = FakeOP(claims={"nonce": "not-the-one"})
    pair = build(op, checks=["pkce", "nonce"])
    response = sign_in(pair.browser, op)
    assert_failed(
        pair,
        response,
        checks={"authjs.nonce", "authjs.pkce.code_verifier"},
        because="`nonce` does not match",
    )


def test_unexpected_nonce():
    op = FakeOP(claims={"nonce": "injected"})
    pair = build(op)
    assert_failed(
        pair, sign_in(pair.browser, op), checks=CHECKS, because="`nonce` but none was sent"
    )


def test_id_token_iss_mismatch():
    op = FakeOP(claims={"iss": "https://evil.example"})
    pair = build(op)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="`iss` is not the issuer")


def test_expired_id_token():
    op = FakeOP()
    pair = build(op)
    op.claims = {"exp": int(pair.clock.now) - 31}
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="expired")


def test_id_token_within_clock_tolerance():
    op = FakeOP()
    pair = build(op)
    op.claims = {"exp": int(pair.clock.now) - 20}
    assert sign_in(pair.browser, op).location == ORIGIN


def test_id_token_issued_in_the_future():
    op = FakeOP()
    pair = build(op)
    op.claims = {"iat": int(pair.clock.now) + 3600}
    assert_failed(pair, sign_in(pair.browser, op), because="in the future")


def test_bad_signature():
    op = FakeOP(signing="bad-signature")
    pair = build(op)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="signature is invalid")


def test_unknown_kid_refetches_the_jwks_once():
    op = FakeOP(signing_kid="key-2", published=["key-1"])
    pair = build(op)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="no key in the JWKS")
    assert op.count("jwks") == 1  # just fetched: no refetch within the rate limit


def test_key_rotation_is_picked_up():
    op = FakeOP()
    pair = build(op)
    assert_signed_in(pair, sign_in(pair.browser, op))
    op.published = ["key-1", "key-2"]
    op.signing_kid = "key-2"
    pair.clock.advance(61)
    second = pair.new_browser()
    response = sign_in(second, op)
    assert SESSION in written(response)
    assert op.count("jwks") == 2


def test_unknown_kid_refetch_is_rate_limited():
    op = FakeOP()
    pair = build(op)
    assert_signed_in(pair, sign_in(pair.browser, op))
    op.signing_kid = "key-9"  # never published
    pair.clock.advance(61)
    for _ in range(3):
        pair.performer.clear()
        browser = pair.new_browser()
        assert_failed(pair, sign_in(browser, op), browser=browser, because="no key in the JWKS")
    assert op.count("jwks") == 2  # one refetch for three tokens


def test_alg_none_is_refused():
    op = FakeOP(signing="none")
    pair = build(op)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="alg none")


@pytest.mark.filterwarnings("ignore:This key should not be used as an oct key")
def test_hmac_with_the_public_key_is_refused():
    op = FakeOP(
        signing="hmac-public-key",
        metadata={"id_token_signing_alg_values_supported": ["RS256", "HS256"]},
    )
    pair = build(op)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="symmetric HS256")


def test_algorithm_not_allowed_by_the_client():
    op = FakeOP()
    pair = build(op, client={"id_token_signed_response_alg": "ES256"})
    assert_failed(pair, sign_in(pair.browser, op), because="is not one of ES256")


def test_es256_when_configured():
    op = FakeOP(signing_alg="ES256", signing_kid="ec-1", published=["key-1", "ec-1"])
    pair = build(op, client={"id_token_signed_response_alg": "ES256"})
    assert_signed_in(pair, sign_in(pair.browser, op))


def test_audience_mismatch():
    op = FakeOP(claims={"aud": "someone-else"})
    pair = build(op)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="(`aud`)")


def test_several_audiences_need_azp():
    op = FakeOP(claims={"aud": [CLIENT_ID, "other"]})
    pair = build(op)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="no `azp`")


def test_azp_of_another_party():
    op = FakeOP(claims={"azp": "other"})
    pair = build(op)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="(`azp`)")


def test_azp_with_several_audiences():
    op = FakeOP(claims={"aud": [CLIENT_ID, "other"], "azp": CLIENT_ID})
    pair = build(op)
    assert_signed_in(pair, sign_in(pair.browser, op))


def test_userinfo_profile_when_id_token_is_off():
    op = FakeOP(userinfo_claims={"name": "Alice Liddell", "nickname": "al"})
    pair = build(op, id_token=False)
    event = assert_signed_in(pair, sign_in(pair.browser, op))
    assert "iss" not in event["profile"]  # the userinfo answer, not the ID token
    [userinfo] = [r for r in op.requests if r.url == op.endpoint("userinfo")]
    assert dict(userinfo.headers)["authorization"].startswith("Bearer at-")


def test_userinfo_sub_mismatch():
    op = FakeOP(userinfo_claims={"sub": "mallory"})
    pair = build(op, id_token=False)
    assert_failed(pair, sign_in(pair.browser, op), checks=CHECKS, because="userinfo `sub`")
