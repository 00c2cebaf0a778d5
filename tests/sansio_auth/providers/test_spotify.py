"""Spotify from recorded Web API responses."""

from sansio_auth.providers import Spotify, SpotifyProvider
from sansio_auth.providers.services.spotify import SERVICE
from tests.sansio_auth.providers.recorded import fixture, fixture_json, headers_of
from tests.sansio_auth.providers.service import Harness

spotify_profile = SERVICE.profile

TOKEN = "https://accounts.spotify.com/api/token"
ME = "https://api.spotify.com/v1/me"
ENV = {"AUTH_SPOTIFY_ID": "5fe01282e44241328a84e7c5cc169165", "AUTH_SPOTIFY_SECRET": "sp-secret"}


def test_defaults_match_auth_js():
    provider = Spotify()
    assert isinstance(provider, SpotifyProvider)
    assert (provider.id, provider.name, provider.type) == ("spotify", "Spotify", "oauth")
    assert provider.authorization.url == "https://accounts.spotify.com/authorize"
    assert (provider.token.url, provider.userinfo.url) == (TOKEN, ME)
    assert provider.checks == ("pkce",)


def test_sign_in():
    h = Harness.build(Spotify, env=ENV)
    h.route("POST", TOKEN, fixture("spotify/token.json"))
    h.route("GET", ME, fixture("spotify/me.json"))
    h.start()
    assert h.authorization_url.startswith("https://accounts.spotify.com/authorize?")
    assert h.authorization["scope"] == "user-read-email"
    assert h.authorization["code_challenge_method"] == "S256"
    event = h.assert_signed_in(h.come_back())
    assert headers_of(h.sent("POST", TOKEN))["authorization"].startswith("Basic ")
    assert event["account"]["provider_account_id"] == "wizzler"
    assert event["account"]["refresh_token"] == "AQCrecordedSpotifyRefreshToken0Ypc"
    assert h.session_user() == {
        "name": "JM Wizzler",
        "email": "email@example.com",
        "image": "https://i.scdn.co/image/ab6775700000ee85recorded",
    }


def test_no_images_no_image():
    me = fixture_json("spotify/me.json")
    assert spotify_profile({**me, "images": []})["image"] is None
    assert spotify_profile({**me, "images": None})["image"] is None
