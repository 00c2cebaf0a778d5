"""Discord from recorded API responses: URLs, PKCE, the profile and the avatar URL rules."""

import pytest

from sansio_auth.providers import Discord, DiscordProvider
from sansio_auth.providers.services.discord import SERVICE, avatar_url
from tests.sansio_auth.providers.recorded import fixture, fixture_json, headers_of
from tests.sansio_auth.providers.service import Harness

TOKEN = "https://discord.com/api/oauth2/token"
USER = "https://discord.com/api/users/@me"
ENV = {"AUTH_DISCORD_ID": "1187004261392433214", "AUTH_DISCORD_SECRET": "dsc-recorded-secret"}
USER_JSON = fixture_json("discord/user.json")


def test_defaults_match_auth_js():
    provider = Discord()
    assert isinstance(provider, DiscordProvider)
    assert (provider.id, provider.name, provider.type) == ("discord", "Discord", "oauth")
    assert provider.authorization.url == "https://discord.com/api/oauth2/authorize"
    assert provider.authorization.params == {"scope": "identify email"}
    assert (provider.token.url, provider.userinfo.url) == (TOKEN, USER)
    assert provider.checks == ("pkce",)
    assert provider.client.token_endpoint_auth_method == "client_secret_basic"


def test_sign_in():
    h = Harness.build(Discord, env=ENV)
    h.route("POST", TOKEN, fixture("discord/token.json"))
    h.route("GET", USER, fixture("discord/user.json"))
    h.start()
    params = h.authorization
    assert h.authorization_url.startswith("https://discord.com/api/oauth2/authorize?")
    assert (params["scope"], params["code_challenge_method"]) == ("identify email", "S256")
    event = h.assert_signed_in(h.come_back())
    assert headers_of(h.sent("POST", TOKEN))["authorization"].startswith("Basic ")
    assert headers_of(h.sent("GET", USER))["authorization"] == (
        "Bearer 6qrZcUqja7812RVdnEKjpzOL4CvHBFG"
    )
    assert event["account"]["provider_account_id"] == "80351110224678912"
    assert event["account"]["refresh_token"] == "D43f5y0ahjqew82jZ4NViEr2YafMKhue"
    assert h.session_user() == {
        "name": "Nelly",
        "email": "nelly@discord.com",
        "image": "https://cdn.discordapp.com/avatars/80351110224678912/"
        "8342729096ea3675442027381ff50dfe.png",
    }


@pytest.mark.parametrize(
    ("changes", "url"),
    [
        (
            {"avatar": "a_1269e74af4df7417b13759eae50c83dc"},
            "avatars/80351110224678912/a_1269e74af4df7417b13759eae50c83dc.gif",
        ),
        (
            {"avatar": None, "discriminator": "0"},
            "embed/avatars/5.png",
        ),
        ({"avatar": None, "discriminator": "1337"}, "embed/avatars/2.png"),
        ({"avatar": None, "discriminator": "0005"}, "embed/avatars/0.png"),
    ],
)
def test_avatar_url_rules(changes, url):
    assert avatar_url({**USER_JSON, **changes}) == f"https://cdn.discordapp.com/{url}"


def test_name_falls_back_to_the_username():
    assert SERVICE.profile({**USER_JSON, "global_name": None, "image_url": "x"})["name"] == "nelly"


def test_the_profile_gets_image_url_as_in_auth_js():
    h = Harness.build(Discord, env=ENV)
    h.route("POST", TOKEN, fixture("discord/token.json"))
    h.route("GET", USER, fixture("discord/user.json"))
    event = h.assert_signed_in(h.sign_in())
    assert event["profile"]["image_url"] == (
        "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png"
    )
