"""Instagram (Instagram API with Instagram Login, OAuth 2.0)."""

from typing import Any

from .._base import ProviderStyle
from ..oauth import Hooks
from ..quirks import bearer_token_type
from ..service import ProfileMap, Service


def short_lived_token(body: dict[str, Any]) -> dict[str, Any]:
    """The documented answer is ``{"data": [{access_token, user_id, permissions}]}``:
    unwrapped, ``permissions`` (comma-separated) as ``scope``, ``token_type`` bearer."""
    data = body.get("data")
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        body = data[0]
    permissions = body.get("permissions")
    if isinstance(permissions, list):
        permissions = ",".join(str(p) for p in permissions)
    if isinstance(permissions, str) and "scope" not in body:
        body = {**body, "scope": " ".join(p for p in permissions.split(",") if p)}
    return bearer_token_type(body)


SERVICE = Service(
    id="instagram",
    name="Instagram",
    type="oauth",
    factory="Instagram",
    authorization="https://api.instagram.com/oauth/authorize",
    token="https://api.instagram.com/oauth/access_token",
    userinfo="https://graph.instagram.com/me?fields=id,username,account_type,name",
    scope="instagram_business_basic",
    client_auth="client_secret_post",
    profile=ProfileMap(id="id", name="username"),
    style=ProviderStyle(bg="#fff", text="#000"),
    hooks=Hooks(token_response=short_lived_token),
    setup="https://developers.facebook.com/apps/",
    notes="Only Instagram professional (business and creator) accounts can sign in. The "
    "token is short-lived (one hour); Instagram gives no e-mail.",
    differs="Auth.js's provider targets the Instagram Basic Display API (scope "
    "`user_profile`), shut down on 4 December 2024; this one uses its successor, the "
    "Instagram API with Instagram Login (scope `instagram_business_basic`), and reads its "
    "token answer (a `data` list, no `token_type`).",
)
