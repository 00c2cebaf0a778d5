"""Patreon (OAuth 2.0)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="patreon",
    name="Patreon",
    type="oauth",
    factory="Patreon",
    authorization="https://www.patreon.com/oauth2/authorize",
    token="https://www.patreon.com/api/oauth2/token",
    userinfo="https://www.patreon.com/api/oauth2/api/current_user",
    scope="identity identity[email]",
    profile=ProfileMap(
        id="data.id",
        name="data.attributes.full_name",
        email="data.attributes.email",
        image="data.attributes.image_url",
    ),
    style=ProviderStyle(bg="#e85b46", text="#fff"),
    setup="https://www.patreon.com/portal/registration/register-clients",
    notes="The user is `data` of `/api/oauth2/api/current_user` (a JSON:API document).",
)
