"""Batch A of the catalogue (42-school ... mailru): what the sign-in scripts do not show
(options, start-up refusals, token answer shapes, edge cases of the mappings, secrets in URLs)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.providers import BUILTIN_PROVIDERS, builtin
from sansio_auth.providers.services.bungie import bungie_profile
from sansio_auth.providers.services.eventbrite import eventbrite_profile
from sansio_auth.providers.services.foursquare import foursquare_profile
from sansio_auth.providers.services.instagram import short_lived_token
from tests.sansio_auth.providers.cases import CASE, Script
from tests.sansio_auth.providers.recorded import FIXTURES, fixture_json, json_response
from tests.sansio_auth.providers.service import Harness, settled


def scripted(provider_id: str, **config: Any) -> Harness:
    """``provider_id`` against the service its ``sign_in.json`` simulates, each scripted
    request answered by URL (in any order, any number of times)."""
    folder = FIXTURES / provider_id
    case = json.loads((folder / CASE).read_text())
    provider = BUILTIN_PROVIDERS[provider_id](**case.get("options", {}))
    h = Harness.build(provider, env=case["env"], **config)
    script = Script(folder, case["requests"])
    for step in case["requests"]:
        h.route(step["method"], step["url"].partition("?")[0], script.answer(step["response"]))
    return h


# -- options Auth.js takes ---------------------------------------------------------------------


@pytest.mark.parametrize("factory", [builtin.Dribbble, builtin.AzureDevOps])
def test_scope_keyword(factory):
    provider = factory(scope="public upload")
    assert provider.authorization.params["scope"] == "public upload"
    with pytest.raises(TypeError, match="space-separated string"):
        factory(scope=["public"])


def test_foursquare_api_version():
    provider = builtin.Foursquare(api_version="20240101")
    assert provider.userinfo.params == {"v": "20240101"}
    assert builtin.Foursquare(apiVersion="20250601").userinfo.params == {"v": "20250601"}
    assert builtin.Foursquare().userinfo.params == {"v": "20230131"}


def test_bungie_api_key_from_auth_js_headers_option_or_env():
    provider = builtin.Bungie(headers={"X-API-Key": "from-headers"})
    assert provider.api_key == "from-headers"
    env = {"AUTH_BUNGIE_ID": "i", "AUTH_BUNGIE_SECRET": "s", "AUTH_BUNGIE_KEY": "from-env"}
    provider = settled(builtin.Bungie, env)
    assert provider.api_key == "from-env"
    assert "from-env" not in repr(provider)
    with pytest.raises(Configuration, match="X-API-Key"):
        builtin.Bungie(headers={"Authorization": "x"})


def test_bungie_without_api_key_fails_at_start_up_naming_the_variable():
    env = {"AUTH_BUNGIE_ID": "i", "AUTH_BUNGIE_SECRET": "s"}
    with pytest.raises(Configuration, match="AUTH_BUNGIE_KEY"):
        settled(builtin.Bungie, env)


def test_boxyhq_issuer_from_env_builds_the_endpoints():
    env = {
        "AUTH_BOXYHQ_SAML_ID": "tenant=acme.com&product=app",
        "AUTH_BOXYHQ_SAML_SECRET": "dummy",
        "AUTH_BOXYHQ_SAML_ISSUER": "https://jackson.acme.com/",
    }
    provider = settled(builtin.SAMLJackson, env)
    assert provider.authorization.url == "https://jackson.acme.com/api/oauth/authorize"
    assert provider.authorization.params == {"provider": "saml"}
    assert provider.token.url == "https://jackson.acme.com/api/oauth/token"
    assert provider.userinfo.url == "https://jackson.acme.com/api/oauth/userinfo"


def test_boxyhq_without_issuer_fails_at_start_up_naming_the_variable():
    env = {"AUTH_BOXYHQ_SAML_ID": "i", "AUTH_BOXYHQ_SAML_SECRET": "s"}
    with pytest.raises(Configuration, match="AUTH_BOXYHQ_SAML_ISSUER"):
        settled(builtin.SAMLJackson, env)


def test_boxyhq_keeps_an_endpoint_given_explicitly():
    provider = builtin.SAMLJackson(
        issuer="https://jackson.acme.com", userinfo="https://profile.acme.com/me"
    )
    assert provider.userinfo.url == "https://profile.acme.com/me"
    assert provider.token.url == "https://jackson.acme.com/api/oauth/token"


def test_auth_js_factory_names_are_aliases():
    assert builtin.FortyTwoSchool is builtin.FortyTwo
    assert builtin.BoxyHQSAML is builtin.SAMLJackson


# -- the engine never lets the browser choose what the provider fixed --------------------------


def test_response_type_comes_from_the_provider_not_from_the_query():
    h = scripted("azure-devops")
    h.start(query="response_type=code&prompt=consent")
    assert h.authorization["response_type"] == "Assertion"
    assert h.authorization["prompt"] == "consent"


# -- token answers ----------------------------------------------------------------------------


def test_mailchimp_token_never_expires():
    h = scripted("mailchimp")
    event = h.assert_signed_in(h.sign_in())
    account = event["account"]
    assert account["token_type"] == "bearer"
    assert "expires_at" not in account
    assert "expires_in" not in account


def test_azure_devops_jwt_bearer_token_and_string_expiry():
    h = scripted("azure-devops")
    event = h.assert_signed_in(h.sign_in())
    account = event["account"]
    assert account["token_type"] == "bearer"
    assert account["expires_at"] == int(h.pair.clock.now) + 3599


def test_azure_devops_profile_without_avatar():
    profile = fixture_json("azure-devops/profile.json")
    del profile["coreAttributes"]
    user = builtin.AzureDevOps().profile(profile)
    assert user["image"] is None
    assert user["id"] == "d6245f20-2af8-44f4-9451-8107cb2767db"


@pytest.mark.parametrize(
    "answer",
    [
        fixture_json("instagram/token.json"),
        # the flat shape (also seen from the same endpoint), permissions as a list
        {"access_token": "IGAA-flat", "user_id": 17841400000, "permissions": ["a", "b"]},
    ],
)
def test_instagram_token_answer_shapes(answer):
    tokens = short_lived_token(answer)
    assert tokens["token_type"] == "bearer"
    assert tokens["access_token"].startswith("IGAA")
    assert tokens["scope"] in ("instagram_business_basic", "a b")


def test_instagram_error_answer_is_left_as_it_is():
    error = {"error_type": "OAuthException", "code": 400, "error_message": "Invalid code"}
    assert short_lived_token(error) == error


def test_click_up_token_answer_with_a_token_type_is_kept():
    h = scripted("click-up")
    h.route(
        "POST",
        "https://api.clickup.com/api/v2/oauth/token",
        json_response({"access_token": "tok", "token_type": "Bearer"}),
    )
    event = h.assert_signed_in(h.sign_in())
    assert event["account"]["token_type"] == "bearer"


def test_a_token_error_ends_on_the_error_page():
    h = scripted("foursquare")
    h.route(
        "POST",
        "https://foursquare.com/oauth2/access_token",
        json_response({"error": "invalid_grant"}, status=400),
    )
    response = h.sign_in()
    assert response.status == 302
    assert "error=" in (response.location or "")
    assert h.pair.performer.emitted("sign_in") == []


# -- secrets in URLs ---------------------------------------------------------------------------


def test_hubspot_token_never_reaches_logs_or_error_messages():
    h = scripted("hubspot", debug=True)
    token = fixture_json("hubspot/token.json")["access_token"]

    def unreachable(request: OutboundRequest) -> HTTPResponse:
        raise ConnectionError("HubSpot is down")

    h.route("GET", f"https://api.hubapi.com/oauth/v1/access-tokens/{token}", unreachable)
    response = h.sign_in()
    assert response.status == 302
    lines = []
    for entry in h.pair.performer.logs:
        lines.append(entry.message)
        error = entry.error
        while error is not None:
            lines.append(str(error))
            error = error.__cause__
    assert any("access-tokens/…" in line for line in lines), lines
    assert all(token not in line for line in lines), lines


# -- mappings ---------------------------------------------------------------------------------


def test_eventbrite_without_primary_address_or_image():
    user = eventbrite_profile({"id": "1", "name": "N", "emails": [{"email": "a@b.c"}]})
    assert user == {"id": "1", "name": "N", "email": None, "image": None}


def test_bungie_picture_path_without_leading_slash_and_missing():
    answer = fixture_json("bungie/memberships.json")
    user = answer["Response"]["bungieNetUser"]
    user["profilePicturePath"] = "img/profile/avatars/x.jpg"
    assert bungie_profile(answer)["image"] == "https://www.bungie.net/img/profile/avatars/x.jpg"
    del user["profilePicturePath"]
    assert bungie_profile(answer)["image"] is None


def test_foursquare_without_photo_or_last_name():
    answer = fixture_json("foursquare/self.json")
    user = answer["response"]["user"]
    del user["photo"], user["lastName"]
    mapped = foursquare_profile(answer)
    assert (mapped["name"], mapped["image"]) == ("Jimmy", None)


def test_freshbooks_name_without_last_name():
    me = fixture_json("freshbooks/me.json")
    me["response"]["last_name"] = None
    assert builtin.Freshbooks().profile(me)["name"] == "Johnny"
