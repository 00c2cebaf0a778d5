"""Batch C services (issue 22): what their sign-in scripts (``fixtures/<id>/sign_in.json``,
run by ``test_sign_in``) do not show — options, issuers derived from the configuration, and
the responses each service must refuse."""

import json

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.events import HTTPResponse
from sansio_auth.providers import (
    BUILTIN_PROVIDERS,
    LINE,
    AzureAD,
    AzureADB2C,
    BankIDNorway,
    Descope,
    Frontegg,
    FusionAuth,
    MicrosoftEntraIDProvider,
    OryHydra,
    Roblox,
    UnitedEffects,
    Vipps,
)
from sansio_auth.providers.services.microsoft_entra_id import EntraRecord
from tests.sansio_auth.driver import AuthPair
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import fixture, fixture_json, json_response
from tests.sansio_auth.providers.service import Harness, jwks, recorded_oidc, settled, sign


def script_env(provider_id):
    return json.loads(fixture(f"{provider_id}/sign_in.json").body)["env"]


def failing(h, **params):
    """Start the sign-in, forget what it logged, come back: the response to check."""
    h.start()
    h.pair.performer.clear()
    return h.come_back(**params)


# -- issuers and endpoints derived from the configuration ----------------------------------------


def test_descope_issuer_is_the_project_of_the_client_id():
    env = {"AUTH_DESCOPE_ID": "P2project", "AUTH_DESCOPE_SECRET": "s"}
    assert settled(Descope, env).issuer == "https://api.descope.com/P2project"
    code = Descope(client_id="P2code")
    assert settled(code, {"AUTH_DESCOPE_SECRET": "s"}).issuer == "https://api.descope.com/P2code"
    with_issuer = {**env, "AUTH_DESCOPE_ISSUER": "https://auth.example.com/P2project"}
    assert settled(Descope, with_issuer).issuer == "https://auth.example.com/P2project"
    given = Descope(issuer="https://api.descope.com/P2given")
    assert settled(given, with_issuer).issuer == "https://api.descope.com/P2given"


def test_descope_without_client_id_names_it():
    with pytest.raises(Configuration, match="AUTH_DESCOPE_ID"):
        AuthPair.build(providers=[Descope], env={"AUTH_DESCOPE_SECRET": "s"})


@pytest.mark.parametrize("issuer", ["https://acme.frontegg.com", "https://acme.frontegg.com/"])
def test_frontegg_endpoints_are_under_the_environment_issuer(issuer):
    env = {"AUTH_FRONTEGG_ID": "c", "AUTH_FRONTEGG_SECRET": "s", "AUTH_FRONTEGG_ISSUER": issuer}
    provider = settled(Frontegg, env)
    base = "https://acme.frontegg.com"
    assert provider.authorization.url == f"{base}/oauth/authorize"
    assert provider.token.url == f"{base}/oauth/token"
    assert provider.userinfo.url == f"{base}/identity/resources/users/v2/me"
    assert provider.well_known == f"{base}/oauth/.well-known/openid-configuration"


def test_fusionauth_endpoints_from_the_issuer_given_in_code():
    provider = FusionAuth(issuer="https://auth.example.com")
    assert provider.token.url == "https://auth.example.com/oauth2/token"
    assert provider.userinfo.url == "https://auth.example.com/oauth2/userinfo"
    assert provider.well_known is None  # discovery at <issuer>/.well-known/openid-configuration


def test_fusionauth_tenant_asks_for_the_tenants_document_and_theme():
    tenant = "6bfdf8d2-2a5f-4c3e-8b9a-1d2e3f4a5b6c"
    h = recorded_oidc(FusionAuth(tenant_id=tenant), "fusionauth", env=script_env("fusionauth"))
    h.start()
    assert h.authorization["tenantId"] == tenant
    assert h.authorization["scope"] == "openid offline_access email profile"
    [discovery] = h.service.requests[:1]
    assert discovery.url == (
        f"https://piedpiper.fusionauth.io/.well-known/openid-configuration?tenantId={tenant}"
    )
    h.assert_signed_in(h.come_back())


def test_fusionauth_tenant_id_must_be_text():
    with pytest.raises(Configuration, match="tenant_id"):
        FusionAuth(tenant_id=7)


def test_fusionauth_name_joins_given_middle_and_family_names():
    h = recorded_oidc(
        FusionAuth, "fusionauth", env=script_env("fusionauth"), preferred_username=None
    )
    h.assert_signed_in(h.sign_in())
    assert h.session_user()["name"] == "Richard Hendricks"  # the empty middle name is skipped


def test_united_effects_resource_is_the_issuer_unless_the_request_names_one():
    env = script_env("united-effects")
    h = recorded_oidc(UnitedEffects, "united-effects", env=env)
    h.start()
    assert h.authorization["resource"] == env["AUTH_UNITED_EFFECTS_ISSUER"]
    h.start("resource=https%3A%2F%2Fapi.example.com")
    assert h.authorization["resource"] == "https://api.example.com"


def test_azure_ad_is_entra_id_under_its_old_id_and_variables():
    env = {"AUTH_AZURE_AD_ID": "app", "AUTH_AZURE_AD_SECRET": "s"}
    provider = settled(AzureAD(profile_photo_size=96), env)
    assert isinstance(provider, EntraRecord)
    assert not isinstance(provider, MicrosoftEntraIDProvider)
    assert (provider.id, provider.name) == ("azure-ad", "Azure Active Directory")
    assert provider.issuer == "https://login.microsoftonline.com/common/v2.0"
    assert provider.profile_photo_size == 96
    assert provider.authorization.params == {"scope": "openid profile email User.Read"}


def test_hydra_is_auth_js_s_runtime_id_and_ory_hydra_its_module_name():
    env = {
        "AUTH_HYDRA_ID": "c",
        "AUTH_HYDRA_SECRET": "s",
        "AUTH_HYDRA_ISSUER": "https://hydra.example.com",
    }
    provider = settled(BUILTIN_PROVIDERS["ory-hydra"], env)
    assert (provider.id, provider.name, provider.client_id) == ("hydra", "Hydra", "c")
    assert BUILTIN_PROVIDERS["hydra"] is OryHydra


def test_vipps_and_bankid_test_environments_from_the_variable():
    test_issuer = "https://apitest.vipps.no/access-management-1.0/access/"
    env = {"AUTH_VIPPS_ID": "c", "AUTH_VIPPS_SECRET": "s", "AUTH_VIPPS_ISSUER": test_issuer}
    assert settled(Vipps, env).issuer == test_issuer
    env = {"AUTH_BANKID_NO_ID": "c", "AUTH_BANKID_NO_SECRET": "s"}
    assert settled(BankIDNorway, env).issuer == "https://auth.bankid.no/auth/realms/prod"


# -- profiles --------------------------------------------------------------------------------------


def test_b2c_name_falls_back_to_the_username_and_email_is_the_first_of_emails():
    emails = ["first@contoso.com", "second@contoso.com"]
    h = recorded_oidc(AzureADB2C, "azure-ad-b2c", env=script_env("azure-ad-b2c"))
    token_endpoint = fixture_json("azure-ad-b2c/openid-configuration.json")["token_endpoint"]
    changes = {"name": None, "preferred_username": "dana", "emails": emails}
    answer = h.id_token_answer(
        "azure-ad-b2c/token.json", "azure-ad-b2c/id_token_claims.json", **changes
    )
    h.route("POST", token_endpoint, answer)
    h.assert_signed_in(h.sign_in())
    assert h.session_user() == {"name": "dana", "email": "first@contoso.com", "image": None}


# -- responses each service must refuse ---------------------------------------------------------


def line(**claims):
    """LINE as its script sets it up, the token endpoint answering an ID token of ``claims``."""
    env = script_env("line")
    h = Harness.build(LINE, env=env)
    document = fixture_json("line/openid-configuration.json")
    h.route(
        "GET",
        "https://access.line.me/.well-known/openid-configuration",
        fixture("line/openid-configuration.json"),
    )
    h.route("GET", document["jwks_uri"], jwks())
    answer = h.id_token_answer(
        "line/token.json",
        "line/id_token_claims.json",
        alg=claims.pop("alg", "HS256"),
        secret=claims.pop("secret", env["AUTH_LINE_SECRET"]),
        **claims,
    )
    h.route("POST", document["token_endpoint"], answer)
    return h


def test_line_signs_in_with_an_hs256_token_of_its_channel_secret():
    h = line()
    h.assert_signed_in(h.sign_in())


def test_line_refuses_a_token_of_another_secret():
    h = line(secret="not-the-channel-secret")
    assert_failed(h.pair, failing(h), because="signature")


def test_line_refuses_a_public_key_signature_it_did_not_declare():
    h = line(alg="RS256")
    assert_failed(h.pair, failing(h), because="RS256")


def test_roblox_refuses_an_rs256_token_its_discovery_does_not_list():
    h = recorded_oidc(Roblox, "roblox", env=script_env("roblox"))
    assert_failed(h.pair, failing(h), because="RS256")


def bankid(userinfo):
    h = recorded_oidc(BankIDNorway, "bankid-no", env=script_env("bankid-no"))
    h.route("GET", "https://userinfo.bankid.no/userinfo", userinfo)
    return h


def signed_userinfo(**changes):
    claims = {**fixture_json("bankid-no/userinfo_claims.json"), **changes}
    return HTTPResponse(
        status=200, headers={"content-type": "application/jwt"}, body=sign(claims).encode()
    )


def test_bankid_signs_in_with_its_signed_userinfo():
    h = bankid(signed_userinfo())
    h.assert_signed_in(h.sign_in())
    assert h.session_user()["email"] == "frode.nilsen@example.no"


def test_bankid_refuses_plain_json_userinfo():
    h = bankid(json_response(fixture_json("bankid-no/userinfo_claims.json")))
    assert_failed(h.pair, failing(h), because="not signed")


def test_bankid_refuses_userinfo_for_another_client():
    h = bankid(signed_userinfo(aud="another-client"))
    assert_failed(h.pair, failing(h), because="`aud`")


def test_vipps_refuses_userinfo_of_another_user():
    h = recorded_oidc(Vipps, "vipps", env=script_env("vipps"))
    other = {**fixture_json("vipps/userinfo.json"), "sub": "5a9c1e4b-0000-4000-8000-000000000000"}
    h.route("GET", "https://api.vipps.no/vipps-userinfo-api/userinfo", json_response(other))
    assert_failed(h.pair, failing(h), because="`sub`")
