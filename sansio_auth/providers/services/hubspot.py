"""HubSpot (OAuth 2.0)."""

from ...events import OutboundRequest
from ...fetch import ACCEPT_JSON, get_object
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet
from ..service import ProfileMap, Service


def token_metadata(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """``GET /oauth/v1/access-tokens/{token}``: who the token was issued to (no bearer header:
    the token is the path). Logs show the URL without it."""
    request = OutboundRequest(
        method="GET",
        url=f"{url.rstrip('/')}/{tokens['access_token']}",
        headers=(ACCEPT_JSON,),
        shown_url=f"{url.rstrip('/')}/…",
    )
    return (yield from get_object(request, "userinfo"))


SERVICE = Service(
    id="hubspot",
    name="HubSpot",
    type="oauth",
    factory="HubSpot",
    authorization="https://app.hubspot.com/oauth/authorize",
    token="https://api.hubapi.com/oauth/v1/token",
    userinfo="https://api.hubapi.com/oauth/v1/access-tokens",
    scope="oauth",
    client_auth="client_secret_post",
    profile=ProfileMap(id="user_id", name="user", email="user"),
    style=ProviderStyle(bg="#ff7a59", text="#fff"),
    hooks=Hooks(userinfo=token_metadata),
    setup="https://developers.hubspot.com/docs/apps/legacy-apps/public-apps/overview",
    notes="The user is the metadata of the access token (`user` is the e-mail, also used as "
    "the name; no picture). HubSpot takes the token in that request's path: logs and "
    "recordings show it redacted. HubSpot retires these v1 OAuth endpoints on 16 February 2027.",
)
