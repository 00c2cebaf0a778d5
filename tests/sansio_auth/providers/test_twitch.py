"""Twitch from recorded responses: the ``claims`` request, the token response conform."""

import json

import pytest

from sansio_auth.providers import Twitch, TwitchProvider
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import fixture, form_of, headers_of
from tests.sansio_auth.providers.service import recorded_oidc

TOKEN = "https://id.twitch.tv/oauth2/token"
CLIENT_ID = "hof5gwx0su6owfnys0nyan9c87zr6t"
ENV = {"AUTH_TWITCH_ID": CLIENT_ID, "AUTH_TWITCH_SECRET": "41vpdji4e9gif29md0ouet6fktd2"}


def test_defaults_match_auth_js():
    provider = Twitch()
    assert isinstance(provider, TwitchProvider)
    assert (provider.id, provider.name, provider.type) == ("twitch", "Twitch", "oidc")
    assert provider.issuer == "https://id.twitch.tv/oauth2"
    assert provider.checks == ("pkce",)
    assert provider.client.token_endpoint_auth_method == "client_secret_post"


def test_sign_in():
    h = recorded_oidc(Twitch, "twitch", env=ENV)
    h.start()
    assert h.authorization_url.startswith("https://id.twitch.tv/oauth2/authorize?")
    params = h.authorization
    assert params["scope"] == "openid user:read:email"
    assert json.loads(params["claims"]) == {
        "id_token": {"email": None, "picture": None, "preferred_username": None}
    }
    assert params["code_challenge_method"] == "S256"
    event = h.assert_signed_in(h.come_back())
    token = h.sent("POST", TOKEN)
    assert "authorization" not in headers_of(token)
    assert form_of(token)["client_secret"] == ENV["AUTH_TWITCH_SECRET"]
    assert event["account"]["scope"] == "openid user:read:email"  # an array on the wire
    assert event["account"]["provider_account_id"] == "713936733"
    assert h.session_user() == {
        "name": "twitchdev",
        "email": "streamer@example.com",
        "image": "https://static-cdn.jtvnw.net/jtv_user_pictures/recorded-profile_image-300x300.png",
    }


def test_twitch_error_body_is_read_as_an_oauth_error():
    h = recorded_oidc(Twitch, "twitch", env=ENV)
    h.route("POST", TOKEN, fixture("twitch/token_error.json", status=400))
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="`invalid_request`")


@pytest.mark.parametrize(
    ("body", "conformed"),
    [
        (
            {"access_token": "a", "scope": ["openid", "x"]},
            {"access_token": "a", "scope": "openid x"},
        ),
        ({"access_token": "a", "scope": "openid"}, {"access_token": "a", "scope": "openid"}),
        ({"access_token": "a", "scope": 5}, {"access_token": "a"}),
        (
            {"status": 400, "message": "Invalid"},
            {"error": "invalid_request", "error_description": "Invalid"},
        ),
        ({"error": "invalid_grant"}, {"error": "invalid_grant"}),
    ],
)
def test_conform_token_response(body, conformed):
    assert Twitch().conform_token_response(body) == conformed
