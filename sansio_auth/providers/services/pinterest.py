"""Pinterest (OAuth 2.0, API v5)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="pinterest",
    name="Pinterest",
    type="oauth",
    factory="Pinterest",
    authorization="https://www.pinterest.com/oauth",
    token="https://api.pinterest.com/v5/oauth/token",
    userinfo="https://api.pinterest.com/v5/user_account",
    scope="user_accounts:read",
    profile=ProfileMap(id="username", name="username", image="profile_image"),
    style=ProviderStyle(brand_color="#bd081c"),
    setup="https://developers.pinterest.com/apps/",
    notes="The account id is the username (as Auth.js's); Pinterest gives no e-mail.",
    differs="The factory is `Pinterest` (Auth.js exports it as `PinterestProvider`, the "
    "name of the record type here).",
)
