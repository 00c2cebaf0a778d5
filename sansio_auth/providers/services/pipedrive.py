"""Pipedrive (OAuth 2.0, Marketplace apps)."""

from ..service import ProfileMap, Service

SERVICE = Service(
    id="pipedrive",
    name="Pipedrive",
    type="oauth",
    factory="Pipedrive",
    authorization="https://oauth.pipedrive.com/oauth/authorize",
    token="https://oauth.pipedrive.com/oauth/token",
    userinfo="https://api.pipedrive.com/users/me",
    profile=ProfileMap(id="data.id", name="data.name", email="data.email", image="data.icon_url"),
    setup="https://developers.pipedrive.com/docs/api/v1/Oauth",
    notes="The user is `data` of `/users/me`; a Pipedrive user of several companies gets one "
    "token per company.",
)
