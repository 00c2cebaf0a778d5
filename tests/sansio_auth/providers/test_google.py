"""Google from its recorded discovery document and token response, with a test-signed ID token."""

import json

from joserfc import jws

from sansio_auth import AuthConfig
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.providers import Google, GoogleProvider
from tests.sansio_auth.driver import ORIGIN, SECRET, AuthPair, query_of, written
from tests.sansio_auth.oauth.fake_op import assert_failed, rsa_key, start
from tests.sansio_auth.providers.recorded import (
    Recorded,
    callback,
    fixture,
    fixture_json,
    form_of,
    headers_of,
    json_response,
)

DISCOVERY = "https://accounts.google.com/.well-known/openid-configuration"
TOKEN = "https://oauth2.googleapis.com/token"
CERTS = "https://www.googleapis.com/oauth2/v3/certs"
CLIENT_ID = "1234987819200.apps.googleusercontent.com"
KID = "f5f4bf46e52b31d9b6249f7309ad0338400680cd"


def google(claims=None, **provider):
    """An engine with Google, and Google's endpoints replayed (ID token signed here)."""
    holder = {}

    def token(request: OutboundRequest) -> HTTPResponse:
        now = int(holder["pair"].clock.now)
        body = {
            **fixture_json("google/id_token_claims.json"),
            "iat": now,
            "exp": now + 3599,
            **(claims or {}),
        }
        signed = jws.serialize_compact(
            {"alg": "RS256", "kid": KID, "typ": "JWT"}, json.dumps(body), rsa_key(KID)
        )
        return json_response({**fixture_json("google/token.json"), "id_token": signed})

    service = Recorded(
        {
            ("GET", DISCOVERY): fixture(
                "google/openid-configuration.json", cache_control="public, max-age=3600"
            ),
            ("GET", CERTS): json_response({"keys": [rsa_key(KID).as_dict(private=False)]}),
            ("POST", TOKEN): token,
        }
    )
    config = AuthConfig(
        secret=SECRET,
        trust_host=True,
        providers=[Google(**provider)] if provider else [Google],
        events={"sign_in": lambda **message: None},
    )
    env = {"AUTH_GOOGLE_ID": CLIENT_ID, "AUTH_GOOGLE_SECRET": "GOCSPX-secret"}
    pair = AuthPair.build(config, env=env)
    holder["pair"] = pair
    pair.performer.http = service.handle
    return pair, service


def test_defaults_match_auth_js():
    provider = Google()
    assert isinstance(provider, GoogleProvider)
    assert (provider.id, provider.name, provider.type) == ("google", "Google", "oidc")
    assert provider.issuer == "https://accounts.google.com"
    assert provider.checks == ("pkce",)
    assert provider.profile is None  # the OIDC default: sub, name, email, picture


def test_authorization_request_from_discovery():
    pair, service = google()
    location = start(pair.browser, "google").location
    assert location.startswith("https://accounts.google.com/o/oauth2/v2/auth?")
    params = query_of(location)
    assert params["client_id"] == CLIENT_ID
    assert params["scope"] == "openid profile email"
    assert params["redirect_uri"] == f"{ORIGIN}/auth/callback/google"
    assert params["code_challenge_method"] == "S256"
    assert len(service.sent("GET", DISCOVERY)) == 1


def test_offline_access_params():
    pair, _ = google(authorization={"params": {"access_type": "offline", "prompt": "consent"}})
    params = query_of(start(pair.browser, "google").location)
    assert (params["access_type"], params["prompt"]) == ("offline", "consent")


def test_sign_in():
    pair, service = google()
    start(pair.browser, "google")
    response = callback(pair.browser, "google", {"code": "4/0AY0e-g7", "scope": "email openid"})
    assert response.location == ORIGIN
    assert "authjs.session-token" in written(response)
    [token] = service.sent("POST", TOKEN)
    assert headers_of(token)["authorization"].startswith("Basic ")
    assert form_of(token)["redirect_uri"] == f"{ORIGIN}/auth/callback/google"
    [event] = pair.performer.emitted("sign_in")
    assert event["account"]["provider_account_id"] == "10769150350006150715113082367"
    assert event["account"]["expires_in"] == 3599
    assert event["profile"]["email_verified"] is True
    assert pair.browser.session()["user"] == {
        "name": "John Smith",
        "email": "jsmith@example.com",
        "image": "https://lh3.googleusercontent.com/a/ACg8ocK-recorded=s96-c",
    }
    start(pair.new_browser(), "google")
    assert len(service.sent("GET", DISCOVERY)) == 1  # cached by max-age


def test_token_for_another_client_is_refused():
    pair, _ = google(claims={"aud": "other.apps.googleusercontent.com"})
    start(pair.browser, "google")
    pair.performer.clear()
    response = callback(pair.browser, "google", {"code": "x"})
    assert_failed(pair, response, checks={"authjs.pkce.code_verifier"}, because="(`aud`)")


def test_sign_in_page_button():
    pair, _ = google()
    page = pair.browser.get("/auth/signin").body.decode()
    assert f'action="{ORIGIN}/auth/signin/google"' in page
    assert "Sign in with Google" in page
    assert "--provider-bg:#1a73e8" in page
