"""Zoom (OAuth 2.0)."""

from .._base import ProviderStyle
from ..service import Join, ProfileMap, Service

SERVICE = Service(
    id="zoom",
    name="Zoom",
    type="oauth",
    factory="Zoom",
    authorization="https://zoom.us/oauth/authorize",
    token="https://zoom.us/oauth/token",
    userinfo="https://api.zoom.us/v2/users/me",
    profile=ProfileMap(
        id="id",
        name=(Join("first_name", "last_name"), "display_name"),
        email="email",
        image="pic_url",
    ),
    style=ProviderStyle(bg="#0b5cff", text="#fff"),
    setup="https://developers.zoom.us/docs/integrations/oauth/",
    notes="No scope parameter: the app's scopes apply.",
    differs="Where Auth.js would show `undefined undefined`, a missing first or last name "
    "is left out and an empty name falls back to `display_name`.",
)
