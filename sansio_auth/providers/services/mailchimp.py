"""Mailchimp (OAuth 2.0)."""

from typing import Any

from .._base import ProviderStyle
from ..oauth import Hooks
from ..quirks import bearer_token_type
from ..service import ProfileMap, Service


def never_expiring(body: dict[str, Any]) -> dict[str, Any]:
    """Mailchimp's tokens never expire and say so with ``expires_in: 0``; no ``token_type``."""
    if body.get("expires_in") == 0:
        body = {k: v for k, v in body.items() if k != "expires_in"}
    return bearer_token_type(body)


SERVICE = Service(
    id="mailchimp",
    name="Mailchimp",
    type="oauth",
    factory="Mailchimp",
    authorization="https://login.mailchimp.com/oauth2/authorize",
    token="https://login.mailchimp.com/oauth2/token",
    userinfo="https://login.mailchimp.com/oauth2/metadata",
    profile=ProfileMap(id="login.login_id", name="accountname", email="login.email"),
    style=ProviderStyle(bg="#000", text="#fff"),
    hooks=Hooks(token_response=never_expiring),
    setup="https://admin.mailchimp.com/account/oauth2/",
    notes="No scopes. The user is `GET /oauth2/metadata` (its `dc` and `api_endpoint` name "
    "the account's data centre). Tokens never expire and have no refresh token.",
    differs='The token answer\'s `expires_in: 0` ("never") is dropped rather than read as '
    "already expired, and the missing `token_type` is taken as `bearer` (oauth4webapi, "
    "under Auth.js, requires one).",
)
