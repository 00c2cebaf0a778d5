"""Yandex ID (OAuth 2.0)."""

from collections.abc import Mapping
from typing import Any

from .._base import ProviderStyle
from ..service import ProfileMap, Service

AVATARS = "https://avatars.yandex.net/get-yapic"
FIELDS = ProfileMap(
    id="id", name=("display_name", "real_name", "first_name"), email=("default_email", "emails.0")
)


def yandex_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Yandex user → user; the image is the 200 pixel avatar of ``default_avatar_id``."""
    avatar = profile.get("default_avatar_id")
    empty = profile.get("is_avatar_empty")
    image = f"{AVATARS}/{avatar}/islands-200" if avatar and not empty else None
    return {**FIELDS(profile), "image": image}


SERVICE = Service(
    id="yandex",
    name="Yandex",
    type="oauth",
    factory="Yandex",
    authorization="https://oauth.yandex.ru/authorize",
    token="https://oauth.yandex.ru/token",
    userinfo="https://login.yandex.ru/info",
    scope="login:info login:email login:avatar",
    userinfo_params={"format": "json"},
    profile=yandex_profile,
    style=ProviderStyle(bg="#ffcc00", text="#000"),
    setup="https://oauth.yandex.com/client/new",
    notes="The image is `https://avatars.yandex.net/get-yapic/<default_avatar_id>/islands-200` "
    "unless the avatar is empty.",
)
