"""Bitbucket from recorded API responses: the profile, and e-mails with the ``email`` scope."""

import pytest

from sansio_auth.providers import Bitbucket, BitbucketProvider
from sansio_auth.providers.services.bitbucket import confirmed_email
from tests.sansio_auth.providers.recorded import fixture, fixture_json, headers_of, json_response
from tests.sansio_auth.providers.service import Harness

TOKEN = "https://bitbucket.org/site/oauth2/access_token"
USER = "https://api.bitbucket.org/2.0/user"
EMAILS = "https://api.bitbucket.org/2.0/user/emails"
ENV = {"AUTH_BITBUCKET_ID": "Zm9yLXJlY29yZGVk", "AUTH_BITBUCKET_SECRET": "bb-recorded-secret"}


def bitbucket(provider=Bitbucket, token=None, emails=None):
    h = Harness.build(provider, env=ENV)
    h.route("POST", TOKEN, token or fixture("bitbucket/token.json"))
    h.route("GET", USER, fixture("bitbucket/user.json"))
    h.route("GET", EMAILS, emails or fixture("bitbucket/emails.json"))
    return h


def test_defaults_match_auth_js():
    provider = Bitbucket()
    assert isinstance(provider, BitbucketProvider)
    assert (provider.id, provider.name, provider.type) == ("bitbucket", "Bitbucket", "oauth")
    assert provider.authorization.url == "https://bitbucket.org/site/oauth2/authorize"
    assert provider.authorization.params == {"scope": "account"}
    assert (provider.token.url, provider.userinfo.url) == (TOKEN, USER)
    assert provider.checks == ("pkce",)


def test_sign_in_with_the_email_scope():
    h = bitbucket(Bitbucket(authorization={"params": {"scope": "account email"}}))
    h.start()
    assert h.authorization["scope"] == "account email"
    event = h.assert_signed_in(h.come_back())
    assert headers_of(h.sent("POST", TOKEN))["authorization"].startswith("Basic ")
    bearer = "Bearer Ll8zxDtxl0uWWqa1HtXrecorded-bitbucket-token="
    assert headers_of(h.sent("GET", EMAILS))["authorization"] == bearer
    assert event["account"]["provider_account_id"] == "557058:c0b72ad0-1cb5-4018-9cdc-0cde8492c443"
    assert event["account"]["scopes"] == "account email"
    assert h.session_user() == {
        "name": "Tutorials Account",
        "email": "tutorials@example.com",
        "image": fixture_json("bitbucket/user.json")["links"]["avatar"]["href"],
    }


def test_without_the_email_scope_no_emails_request():
    token = {**fixture_json("bitbucket/token.json"), "scopes": "account"}
    h = bitbucket(token=json_response(token))
    h.assert_signed_in(h.sign_in())
    assert h.service.sent("GET", EMAILS) == []
    assert h.session_user()["email"] is None


def test_emails_refused_leaves_no_email():
    h = bitbucket(emails=json_response({"type": "error", "error": {"message": "Forbidden"}}, 403))
    h.assert_signed_in(h.sign_in())
    assert h.session_user()["email"] is None


@pytest.mark.parametrize(
    ("values", "chosen"),
    [
        (fixture_json("bitbucket/emails.json")["values"], "tutorials@example.com"),
        ([{"email": "p@x", "is_primary": True, "is_confirmed": False}], None),
        ([{"email": "a@x", "is_confirmed": True}, {"email": "b@x", "is_confirmed": True}], "a@x"),
        ([], None),
    ],
)
def test_confirmed_email(values, chosen):
    assert confirmed_email({"values": values}) == chosen
    assert confirmed_email({"type": "error"}) is None
