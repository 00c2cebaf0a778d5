"""Slack (Sign in with Slack) from recorded responses: nonce only, the ``ok: false`` error."""

from sansio_auth.providers import Slack, SlackProvider
from tests.sansio_auth.oauth.fake_op import assert_failed
from tests.sansio_auth.providers.recorded import fixture, form_of, headers_of
from tests.sansio_auth.providers.service import recorded_oidc

TOKEN = "https://slack.com/api/openid.connect.token"
ENV = {"AUTH_SLACK_ID": "25259531569.1115258246291", "AUTH_SLACK_SECRET": "slack-secret"}


def test_defaults_match_auth_js():
    provider = Slack()
    assert isinstance(provider, SlackProvider)
    assert (provider.id, provider.name, provider.type) == ("slack", "Slack", "oidc")
    assert provider.issuer == "https://slack.com"
    assert provider.checks == ("nonce",)
    assert provider.client.token_endpoint_auth_method == "client_secret_basic"


def test_sign_in():
    h = recorded_oidc(Slack, "slack", env=ENV)
    h.start()
    assert h.authorization_url.startswith("https://slack.com/openid/connect/authorize?")
    params = h.authorization
    assert params["scope"] == "openid profile email"
    assert params["nonce"]
    assert "state" not in params
    assert "code_challenge" not in params
    event = h.assert_signed_in(h.come_back())
    token = h.sent("POST", TOKEN)
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert "code_verifier" not in form_of(token)
    assert event["account"]["provider_account_id"] == "U0R7JM"
    assert event["account"]["ok"] is True
    assert event["profile"]["https://slack.com/team_id"] == "T0R7GR"
    assert h.session_user() == {
        "name": "krane",
        "email": "krane@slack-corp.com",
        "image": "https://secure.gravatar.com/avatar/bd8a3d0e1a6b0c3e.jpg?s=512",
    }


def test_a_token_without_our_nonce_is_refused():
    h = recorded_oidc(Slack, "slack", env=ENV, nonce=None)
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="`nonce`")


def test_ok_false_is_a_token_error():
    h = recorded_oidc(Slack, "slack", env=ENV)
    h.route("POST", TOKEN, fixture("slack/token_error.json"))
    h.start()
    h.pair.performer.clear()
    assert_failed(h.pair, h.come_back(), because="invalid_code")
