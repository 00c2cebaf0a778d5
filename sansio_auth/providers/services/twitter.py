"""Twitter / X (OAuth 2.0 with PKCE)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="twitter",
    name="Twitter",
    type="oauth",
    factory="Twitter",
    authorization="https://x.com/i/oauth2/authorize",
    token="https://api.x.com/2/oauth2/token",
    userinfo="https://api.x.com/2/users/me",
    scope="users.read tweet.read offline.access",
    userinfo_params={"user.fields": "profile_image_url"},
    checks=("pkce", "state"),
    profile=ProfileMap(
        id="data.id",
        name="data.name",
        email=("data.email", "data.confirmed_email"),
        image="data.profile_image_url",
    ),
    style=ProviderStyle(bg="#1da1f2", text="#fff"),
    setup="https://developer.x.com/en/apps",
    notes="OAuth 1.0a is not supported (as in Auth.js v5). The user comes in a `data` "
    "envelope. X gives no e-mail unless the app asks for it (scope `users.email`, "
    "`user.fields=confirmed_email`); either field name is read.",
)
