"""Twitch (OpenID Connect)."""

from typing import Any

from .._base import ProviderStyle
from ..oauth import Hooks
from ..quirks import scope_text
from ..service import Service


def standard_token_response(body: dict[str, Any]) -> dict[str, Any]:
    """``scope`` array → space-separated text; ``{"status", "message"}`` → an OAuth error."""
    if "access_token" not in body and not isinstance(body.get("error"), str):
        message = body.get("message")
        return {
            "error": "invalid_request",
            "error_description": message if isinstance(message, str) else "",
        }
    return scope_text(body)


SERVICE = Service(
    id="twitch",
    name="Twitch",
    type="oidc",
    factory="Twitch",
    issuer="https://id.twitch.tv/oauth2",
    scope="openid user:read:email",
    params={"claims": {"id_token": {"email": None, "picture": None, "preferred_username": None}}},
    client_auth="client_secret_post",
    style=ProviderStyle(bg="#65459B", text="#fff"),
    hooks=Hooks(token_response=standard_token_response),
    setup="https://dev.twitch.tv/console/apps",
    notes="The `claims` request puts `email`, `picture` and `preferred_username` in the ID "
    "token. The token endpoint answers `scope` as a JSON array and errors as "
    '`{"status", "message"}`: both are made standard before the response is read.',
)
