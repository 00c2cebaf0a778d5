"""LinkedIn (OpenID Connect) from recorded responses: state only, client_secret_post."""

from sansio_auth.providers import LinkedIn, LinkedInProvider
from tests.sansio_auth.driver import written
from tests.sansio_auth.providers.recorded import form_of, headers_of
from tests.sansio_auth.providers.service import recorded_oidc

TOKEN = "https://www.linkedin.com/oauth/v2/accessToken"
ENV = {"AUTH_LINKEDIN_ID": "86q7tm3b2recorded", "AUTH_LINKEDIN_SECRET": "WPL_AP1.recorded"}


def test_defaults_match_auth_js():
    provider = LinkedIn()
    assert isinstance(provider, LinkedInProvider)
    assert (provider.id, provider.name, provider.type) == ("linkedin", "LinkedIn", "oidc")
    assert provider.issuer == "https://www.linkedin.com/oauth"
    assert provider.checks == ("state",)
    assert provider.client.token_endpoint_auth_method == "client_secret_post"


def test_sign_in():
    h = recorded_oidc(LinkedIn, "linkedin", env=ENV)
    started = h.start()
    assert h.authorization_url.startswith("https://www.linkedin.com/oauth/v2/authorization?")
    params = h.authorization
    assert params["scope"] == "openid profile email"
    assert params["state"]
    assert "code_challenge" not in params
    assert "nonce" not in params
    assert "authjs.pkce.code_verifier" not in written(started)
    event = h.assert_signed_in(h.come_back())
    token = h.sent("POST", TOKEN)
    assert "authorization" not in headers_of(token)
    form = form_of(token)
    assert (form["client_id"], form["client_secret"]) == ("86q7tm3b2recorded", "WPL_AP1.recorded")
    assert "code_verifier" not in form
    assert event["account"]["provider_account_id"] == "782bbtaQ"
    assert event["account"]["scope"] == "email,openid,profile"
    assert h.session_user() == {
        "name": "John Doe",
        "email": "doe@email.com",
        "image": event["profile"]["picture"],
    }
