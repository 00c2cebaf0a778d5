"""Threads (Meta's OAuth 2.0 for Threads profiles)."""

from .._base import ProviderStyle
from ..oauth import Hooks
from ..quirks import bearer_token_type
from ..service import ProfileMap, Service

SERVICE = Service(
    id="threads",
    name="Threads",
    type="oauth",
    factory="Threads",
    authorization="https://threads.net/oauth/authorize",
    token="https://graph.threads.net/oauth/access_token",
    userinfo="https://graph.threads.net/v1.0/me",
    scope="threads_basic",
    userinfo_params={"fields": "id,username,threads_profile_picture_url"},
    checks=("state",),
    client_auth="client_secret_post",
    profile=ProfileMap(id="id", name="username", image="threads_profile_picture_url"),
    style=ProviderStyle(bg="#000", text="#fff"),
    hooks=Hooks(token_response=bearer_token_type),
    setup="https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions",
    notes="The `state` check only. The token answer has no `token_type` (a bearer token is "
    "assumed); Threads gives no e-mail.",
    differs="Reads the profile as Meta documents it, a flat object: Auth.js reads a `data` "
    "member that `/v1.0/me` does not have (and refuses the token answer without "
    "`token_type`), so it cannot sign in.",
)
