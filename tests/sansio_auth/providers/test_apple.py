"""Sign in with Apple from recorded responses: form_post, nonce + state, the first-consent name."""

import json

import pytest
from joserfc import jwt

from sansio_auth.providers import Apple, AppleProvider, apple_client_secret
from sansio_auth.providers.services.apple import MAX_SECRET_LIFETIME, apple_profile
from tests.sansio_auth.driver import ORIGIN, set_cookie_lines
from tests.sansio_auth.oauth.fake_op import assert_failed, ec_key
from tests.sansio_auth.providers.recorded import fixture, fixture_json, form_of, headers_of
from tests.sansio_auth.providers.service import Harness, jwks

DISCOVERY = "https://appleid.apple.com/.well-known/openid-configuration"
TOKEN = "https://appleid.apple.com/auth/token"
KEYS = "https://appleid.apple.com/auth/keys"
CLIENT_ID = "com.example.web.signin"
ENV = {"AUTH_APPLE_ID": CLIENT_ID, "AUTH_APPLE_SECRET": "eyJhbGciOiJFUzI1NiJ9.client.secret"}
USER_FIELD = (fixture("apple/user.json").body.decode()).strip()


def apple(provider=Apple, **claims):
    h = Harness.build(provider, env=ENV)
    h.route("GET", DISCOVERY, fixture("apple/openid-configuration.json"))
    h.route("GET", KEYS, jwks())
    h.route(
        "POST", TOKEN, h.id_token_answer("apple/token.json", "apple/id_token_claims.json", **claims)
    )
    return h


def test_defaults_match_auth_js():
    provider = Apple()
    assert isinstance(provider, AppleProvider)
    assert (provider.id, provider.name, provider.type) == ("apple", "Apple", "oidc")
    assert provider.issuer == "https://appleid.apple.com"
    assert provider.authorization.params == {"scope": "name email", "response_mode": "form_post"}
    assert provider.checks == ("nonce", "state")
    assert provider.client.token_endpoint_auth_method == "client_secret_post"
    assert provider.style is not None
    assert (provider.style.bg, provider.style.text) == ("#000", "#fff")


def test_authorization_request_posts_the_answer_back():
    h = apple()
    started = h.start()
    assert h.authorization_url.startswith("https://appleid.apple.com/auth/authorize?")
    params = h.authorization
    assert params["client_id"] == CLIENT_ID
    assert params["scope"] == "name email"
    assert params["response_mode"] == "form_post"
    assert params["redirect_uri"] == f"{ORIGIN}/auth/callback/apple"
    assert params["state"]
    assert params["nonce"]
    assert "code_challenge" not in params
    check_cookies = [
        line
        for line in set_cookie_lines(started)
        if line.startswith(("authjs.state", "authjs.nonce"))
    ]
    assert len(check_cookies) == 2
    assert all("SameSite=None" in line and "Secure" in line for line in check_cookies)


def test_first_sign_in_takes_the_name_from_the_user_field():
    h = apple()
    h.start()
    response = h.come_back(method="POST", user=USER_FIELD)
    event = h.assert_signed_in(response)
    token = h.sent("POST", TOKEN)
    form = form_of(token)
    assert (form["client_id"], form["client_secret"]) == (CLIENT_ID, ENV["AUTH_APPLE_SECRET"])
    assert "authorization" not in headers_of(token)
    assert "code_verifier" not in form
    assert form["redirect_uri"] == f"{ORIGIN}/auth/callback/apple"
    assert event["account"]["provider"] == "apple"
    assert event["account"]["type"] == "oidc"
    assert event["account"]["provider_account_id"] == "001234.5f0d7c1e9b2a4c3d8e6f1a2b3c4d5e6f.1234"
    assert event["account"]["refresh_token"].startswith("r3c2b1")
    assert event["profile"]["user"] == json.loads(USER_FIELD)
    assert h.session_user() == {
        "name": "Jane Appleseed",
        "email": "x7gq2zz8mp@privaterelay.appleid.com",
        "image": None,
    }


def test_later_sign_ins_fall_back_to_the_email_as_name():
    h = apple()
    h.start()
    h.assert_signed_in(h.come_back(method="POST"))
    assert h.session_user()["name"] == "x7gq2zz8mp@privaterelay.appleid.com"


@pytest.mark.parametrize("field", ["{not json", '"a string"', "[1, 2]"])
def test_a_malformed_user_field_is_ignored(field):
    h = apple()
    h.start()
    event = h.assert_signed_in(h.come_back(method="POST", user=field))
    assert "user" not in event["profile"]
    assert h.session_user()["name"] == "x7gq2zz8mp@privaterelay.appleid.com"


def test_the_user_field_never_supplies_the_email():
    forged = json.dumps({"name": {"firstName": "Eve"}, "email": "ceo@example.com"})
    h = apple()
    h.start()
    h.assert_signed_in(h.come_back(method="POST", user=forged))
    assert h.session_user()["email"] == "x7gq2zz8mp@privaterelay.appleid.com"
    assert h.session_user()["name"] == "Eve"


def test_a_wrong_nonce_is_refused():
    h = apple(nonce="replayed-nonce")
    h.start()
    h.pair.performer.clear()
    response = h.come_back(method="POST", user=USER_FIELD)
    assert_failed(h.pair, response, because="`nonce`")


def test_a_missing_state_is_refused():
    h = apple()
    h.start()
    h.pair.performer.clear()
    response = h.come_back(method="POST", state=None)
    assert_failed(h.pair, response, because="state")
    assert h.service.sent("POST", TOKEN) == []


def test_an_expired_code_is_refused():
    h = apple()
    h.route("POST", TOKEN, fixture("apple/token_error.json", status=400))
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(method="POST"), because="invalid_grant")


def test_no_redirect_proxy_for_form_post():
    h = Harness.build(Apple, env=ENV, redirect_proxy_url="https://proxy.example/auth")
    h.route("GET", DISCOVERY, fixture("apple/openid-configuration.json"))
    h.start()
    assert h.authorization["redirect_uri"] == f"{ORIGIN}/auth/callback/apple"


def test_profile_mapping():
    claims = fixture_json("apple/id_token_claims.json")
    assert apple_profile({**claims, "user": {"name": {"firstName": "Jane"}}})["name"] == "Jane"
    assert apple_profile({**claims, "user": {"name": {"lastName": " Doe "}}})["name"] == "Doe"
    assert apple_profile({**claims, "user": {"name": None}})["name"] == claims["email"]


def test_client_secret_jwt():
    key = ec_key("apple-p8")
    secret = apple_client_secret(
        team_id="TEAM123456",
        key_id="KEY1234567",
        private_key=key.as_pem(private=True),
        client_id=CLIENT_ID,
        issued_at=1_800_000_000,
    )
    token = jwt.decode(secret, key, algorithms=["ES256"])
    assert token.header == {"alg": "ES256", "kid": "KEY1234567", "typ": "JWT"}
    assert token.claims == {
        "iss": "TEAM123456",
        "iat": 1_800_000_000,
        "exp": 1_800_000_000 + MAX_SECRET_LIFETIME,
        "aud": "https://appleid.apple.com",
        "sub": CLIENT_ID,
    }
    with pytest.raises(ValueError, match="expires_in"):
        apple_client_secret(
            team_id="T",
            key_id="K",
            private_key=key.as_pem(private=True),
            client_id=CLIENT_ID,
            issued_at=0,
            expires_in=MAX_SECRET_LIFETIME + 1,
        )
