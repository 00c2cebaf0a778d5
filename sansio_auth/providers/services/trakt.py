"""Trakt (OAuth 2.0)."""

from ...fetch import bearer_request, get_object
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet
from ..service import ProfileMap, Service


def api_user(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """Trakt's API wants its version and the app's client id with every request."""
    request = bearer_request(
        url,
        tokens["access_token"],
        ("trakt-api-version", "2"),
        ("trakt-api-key", provider.client_id or ""),
    )
    return (yield from get_object(request, "userinfo"))


SERVICE = Service(
    id="trakt",
    name="Trakt",
    type="oauth",
    factory="Trakt",
    authorization="https://trakt.tv/oauth/authorize",
    token="https://api.trakt.tv/oauth/token",
    userinfo="https://api.trakt.tv/users/me",
    scope="",
    userinfo_params={"extended": "full"},
    profile=ProfileMap(id="ids.slug", name="name", image="images.avatar.full"),
    style=ProviderStyle(bg="#ED2224", text="#fff"),
    hooks=Hooks(userinfo=api_user),
    setup="https://trakt.tv/oauth/applications",
    notes="The user is `/users/me?extended=full`, asked with `trakt-api-version: 2` and "
    "`trakt-api-key: <client id>`. Trakt gives no e-mail and forbids hotlinking its avatars. "
    "For the staging API, override the three URLs with `api-staging.trakt.tv`.",
)
