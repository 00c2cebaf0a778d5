"""Mattermost (OAuth 2.0 provider of a Mattermost server), named by the issuer."""

from .._base import ProviderStyle
from ..service import Join, ProfileMap, Service

SERVICE = Service(
    id="mattermost",
    name="Mattermost",
    type="oauth",
    factory="Mattermost",
    issuer_required="your server's URL, e.g. ``https://my-team.cloud.mattermost.com``",
    authorization="{issuer}/oauth/authorize",
    token="{issuer}/oauth/access_token",
    userinfo="{issuer}/api/v4/users/me",
    client_auth="client_secret_post",
    profile=ProfileMap(id="id", name=("username", Join("first_name", "last_name")), email="email"),
    style=ProviderStyle(bg="#000", text="#fff"),
    setup="https://developers.mattermost.com/integrate/apps/authentication/oauth2/",
    notes="The issuer is the server (`https://my-team.cloud.mattermost.com`); OAuth 2.0 "
    "applications are registered at `<server>/<team>/integrations/oauth2-apps`.",
    differs="The issuer may also come from `AUTH_MATTERMOST_ISSUER` (Auth.js builds the URLs "
    "from the factory's `issuer` option only).",
)
