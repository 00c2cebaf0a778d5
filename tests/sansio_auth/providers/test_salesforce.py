"""Salesforce from recorded responses: the profile from userinfo, pkce + state + nonce."""

from sansio_auth.providers import Salesforce, SalesforceProvider
from tests.sansio_auth.driver import AuthPair
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import (
    fixture,
    fixture_json,
    form_of,
    headers_of,
    json_response,
)
from tests.sansio_auth.providers.service import recorded_oidc

SF = "https://login.salesforce.com"
USERINFO = f"{SF}/services/oauth2/userinfo"
ENV = {"AUTH_SALESFORCE_ID": "3MVG9recordedConsumerKey", "AUTH_SALESFORCE_SECRET": "sf-secret"}
SUB = f"{SF}/id/00D5g000004BZJXEA4/0055g00000BfRZsAAN"


def salesforce(userinfo=None, **claims):
    h = recorded_oidc(Salesforce, "salesforce", env=ENV, **claims)
    h.route("GET", USERINFO, userinfo or fixture("salesforce/userinfo.json"))
    return h


def test_defaults_match_auth_js():
    provider = Salesforce()
    assert isinstance(provider, SalesforceProvider)
    assert (provider.id, provider.name, provider.type) == ("salesforce", "Salesforce", "oidc")
    assert provider.id_token is False
    assert provider.checks == ("pkce", "state", "nonce")
    pair = AuthPair.build(providers=[Salesforce], env=ENV)
    assert pair.engine.settings.providers_by_id["salesforce"].issuer == SF


def test_issuer_from_env_for_a_sandbox():
    env = {**ENV, "AUTH_SALESFORCE_ISSUER": "https://test.salesforce.com"}
    pair = AuthPair.build(providers=[Salesforce], env=env)
    assert (
        pair.engine.settings.providers_by_id["salesforce"].issuer == "https://test.salesforce.com"
    )


def test_sign_in_takes_the_profile_from_userinfo():
    h = salesforce()
    h.start()
    assert h.authorization_url.startswith(f"{SF}/services/oauth2/authorize?")
    params = h.authorization
    assert params["state"]
    assert params["nonce"]
    assert params["code_challenge_method"] == "S256"
    event = h.assert_signed_in(h.come_back())
    token = h.sent("POST", f"{SF}/services/oauth2/token")
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert "client_secret" not in form_of(token)
    assert headers_of(h.sent("GET", USERINFO))["authorization"].startswith("Bearer 00D5g")
    assert event["account"]["provider_account_id"] == SUB
    assert event["account"]["instance_url"] == "https://acme.my.salesforce.com"
    assert event["profile"]["organization_id"] == "00D5g000004BZJXEA4"
    assert h.session_user() == {
        "name": "Ada Admin",
        "email": "ada@acme.example",
        "image": "https://acme.file.force.com/profilephoto/005/F",
    }


def test_userinfo_of_another_user_is_refused():
    other = {**fixture_json("salesforce/userinfo.json"), "sub": f"{SF}/id/00D/005other"}
    h = salesforce(userinfo=json_response(other))
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="`sub`")
