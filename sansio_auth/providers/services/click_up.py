"""ClickUp (OAuth 2.0)."""

from .._base import ProviderStyle
from ..oauth import Hooks
from ..quirks import bearer_token_type
from ..service import ProfileMap, Service

SERVICE = Service(
    id="click-up",
    name="ClickUp",
    type="oauth",
    factory="ClickUp",
    authorization="https://app.clickup.com/api",
    token="https://api.clickup.com/api/v2/oauth/token",
    userinfo="https://api.clickup.com/api/v2/user",
    checks=("state",),
    client_auth="client_secret_post",
    profile=ProfileMap(id="user.id", name="user.username", image="user.profilePicture"),
    style=ProviderStyle(bg="#24292f", text="#fff"),
    hooks=Hooks(token_response=bearer_token_type),
    setup="https://app.clickup.com/settings/apps",
    notes="The `state` check only; no scopes (the user picks Workspaces). ClickUp's token "
    "answer documents only `access_token` (no expiry, no refresh token); a missing "
    "`token_type` is taken as `bearer`.",
    differs="The profile picture is the user's `image` (Auth.js returns it as a non-standard "
    "`profilePicture` field, plus `color`, and no image); the client id and secret go in "
    "the token request's body, the parameters ClickUp documents (Auth.js sends HTTP Basic).",
)
