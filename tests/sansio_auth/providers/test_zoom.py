"""Zoom from recorded API responses: no scope parameter, the name from its parts."""

from sansio_auth.providers import Zoom, ZoomProvider
from sansio_auth.providers.services.zoom import SERVICE
from tests.sansio_auth.providers.recorded import fixture, fixture_json, headers_of
from tests.sansio_auth.providers.service import Harness

zoom_profile = SERVICE.profile

TOKEN = "https://zoom.us/oauth/token"
ME = "https://api.zoom.us/v2/users/me"
ENV = {"AUTH_ZOOM_ID": "vIfcB2WrecordedQ", "AUTH_ZOOM_SECRET": "zoom-recorded-secret"}


def test_defaults_match_auth_js():
    provider = Zoom()
    assert isinstance(provider, ZoomProvider)
    assert (provider.id, provider.name, provider.type) == ("zoom", "Zoom", "oauth")
    assert provider.authorization.url == "https://zoom.us/oauth/authorize"
    assert (provider.token.url, provider.userinfo.url) == (TOKEN, ME)
    assert provider.checks == ("pkce",)


def test_sign_in():
    h = Harness.build(Zoom, env=ENV)
    h.route("POST", TOKEN, fixture("zoom/token.json"))
    h.route("GET", ME, fixture("zoom/user.json"))
    h.start()
    assert h.authorization_url.startswith("https://zoom.us/oauth/authorize?")
    assert "scope" not in h.authorization  # the app's configured scopes apply
    event = h.assert_signed_in(h.come_back())
    assert headers_of(h.sent("POST", TOKEN))["authorization"].startswith("Basic ")
    assert event["account"]["provider_account_id"] == "KDcuGIm1QgePTO8WbOqwIQ"
    assert event["account"]["api_url"] == "https://api.zoom.us"
    assert h.session_user() == {
        "name": "Jill Chill",
        "email": "jchill@example.com",
        "image": "https://us05web.zoom.us/p/v2/recorded-picture",
    }


def test_name_from_what_there_is():
    user = fixture_json("zoom/user.json")
    assert zoom_profile({**user, "last_name": ""})["name"] == "Jill"
    assert zoom_profile({**user, "first_name": None, "last_name": None})["name"] == "Jill Chill"
    nameless = {**user, "first_name": None, "last_name": None, "display_name": None}
    assert zoom_profile(nameless)["name"] is None
