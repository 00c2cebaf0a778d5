"""The check cookies: Auth.js names, lifetimes and salts, provider binding, form_post."""

import pytest

from sansio_auth import jwt
from sansio_auth.cookies import cookie_set
from sansio_auth.errors import InvalidCheck
from sansio_auth.oauth.checks import (
    STATE_SALT,
    new_state,
    pkce_challenge,
    random_value,
    read_state,
    seal,
    unseal_claims,
)
from tests.sansio_auth.driver import SECRET, seeded_entropy

NOW = 1_800_000_000.0
SPECS = cookie_set(False, 2592000, {})
SECURE = cookie_set(True, 2592000, {})


def sealed(spec, value="v", provider="op", **kwargs):
    return seal(
        spec, value, provider_id=provider, secrets=[SECRET], now=NOW,
        entropy=seeded_entropy(1), **kwargs,
    )  # fmt: skip


def opened(cookie, spec, provider="op", now=NOW):
    return unseal_claims(
        {cookie.name: cookie.value}, spec, what="x", provider_id=provider,
        secrets=[SECRET], now=now,
    )["value"]  # fmt: skip


def test_pkce_rfc7636_appendix_b():
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert pkce_challenge(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    assert len(random_value(seeded_entropy(0))) == 43


def test_names_and_lifetimes():
    state = sealed(SPECS.state)
    assert state.header_value().startswith("authjs.state=")
    assert (state.options.max_age, state.options.expires) == (900, NOW + 900)
    pkce = sealed(SPECS.pkce_code_verifier)
    assert pkce.name == "authjs.pkce.code_verifier"
    assert pkce.options.max_age == 900
    nonce = sealed(SPECS.nonce)
    assert nonce.name == "authjs.nonce"
    assert (nonce.options.max_age, nonce.options.expires) == (None, NOW + 900)
    assert sealed(SECURE.state).name == "__Secure-authjs.state"
    for cookie in (state, pkce, nonce):
        assert cookie.options.http_only
        assert cookie.options.same_site == "lax"


def test_value_is_the_auth_js_jwe_salted_with_the_cookie_name():
    cookie = sealed(SPECS.pkce_code_verifier, "verifier")
    payload = jwt.decode(cookie.value, SECRET, "authjs.pkce.code_verifier", now=NOW)
    assert payload["value"] == "verifier"
    assert payload["provider"] == "op"
    assert payload["exp"] == NOW + 900
    with pytest.raises(jwt.InvalidToken):  # never usable as a session token
        jwt.decode(cookie.value, SECRET, "authjs.session-token", now=NOW)


def test_round_trip_and_binding():
    cookie = sealed(SPECS.nonce, "n-1")
    assert opened(cookie, SPECS.nonce) == "n-1"
    with pytest.raises(InvalidCheck, match="another provider"):
        opened(cookie, SPECS.nonce, provider="github")
    with pytest.raises(InvalidCheck, match="could not be parsed"):
        opened(cookie, SPECS.nonce, now=NOW + 900 + 16)
    with pytest.raises(InvalidCheck, match="missing"):
        unseal_claims({}, SPECS.nonce, what="nonce", provider_id="op", secrets=[SECRET], now=NOW)


def test_a_cookie_cannot_stand_in_for_another_check():
    cookie = sealed(SPECS.state, "x")
    with pytest.raises(InvalidCheck):
        unseal_claims(
            {"authjs.nonce": cookie.value}, SPECS.nonce, what="nonce", provider_id="op",
            secrets=[SECRET], now=NOW,
        )  # fmt: skip


def test_extra_claims_travel_beside_the_value():
    cookie = sealed(SPECS.nonce, "n", extra={"max_age": 60})
    claims = unseal_claims(
        {cookie.name: cookie.value}, SPECS.nonce, what="nonce", provider_id="op",
        secrets=[SECRET], now=NOW,
    )  # fmt: skip
    assert (claims["value"], claims["provider"], claims["max_age"]) == ("n", "op", 60)


def test_cross_site_for_form_post():
    cookie = sealed(SPECS.state, cross_site=True)
    assert cookie.options.same_site == "none"
    assert cookie.options.secure
    assert "SameSite=None" in cookie.header_value()


def test_state_is_a_jwe_with_its_own_salt():
    state = new_state([SECRET], now=NOW, entropy=seeded_entropy(2), origin="https://pr.example")
    payload = jwt.decode(state, SECRET, STATE_SALT, now=NOW)
    assert payload["origin"] == "https://pr.example"
    assert len(payload["random"]) == 43
    assert read_state(state, [SECRET], now=NOW)["random"] == payload["random"]
    assert "origin" not in read_state(
        new_state([SECRET], now=NOW, entropy=seeded_entropy(3)), [SECRET], now=NOW
    )
    with pytest.raises(InvalidCheck):
        read_state(state, ["another secret"], now=NOW)
