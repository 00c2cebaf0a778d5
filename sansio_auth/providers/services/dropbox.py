"""Dropbox (OAuth 2.0)."""

from ...events import OutboundRequest
from ...fetch import ACCEPT_JSON, get_object
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet
from ..service import ProfileMap, Service


def current_account(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """Dropbox's RPC endpoints are ``POST`` (no argument: no body, no content type)."""
    request = OutboundRequest(
        method="POST",
        url=url,
        headers=(("authorization", f"Bearer {tokens['access_token']}"), ACCEPT_JSON),
    )
    return (yield from get_object(request, "userinfo"))


SERVICE = Service(
    id="dropbox",
    name="Dropbox",
    type="oauth",
    factory="Dropbox",
    authorization="https://www.dropbox.com/oauth2/authorize",
    token="https://api.dropboxapi.com/oauth2/token",
    userinfo="https://api.dropboxapi.com/2/users/get_current_account",
    scope="account_info.read",
    params={"token_access_type": "offline"},
    profile=ProfileMap(
        id="account_id", name="name.display_name", email="email", image="profile_photo_url"
    ),
    style=ProviderStyle(brand_color="#0061fe", text="#fff"),
    hooks=Hooks(userinfo=current_account),
    setup="https://developers.dropbox.com/oauth-guide",
    notes="The account is read with `POST /2/users/get_current_account`; "
    "`token_access_type=offline` asks for a refresh token.",
)
