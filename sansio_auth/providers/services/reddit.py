"""Reddit (OAuth 2.0)."""

import html
from collections.abc import Mapping
from typing import Any

from .._base import ProviderStyle
from ..service import Service


def reddit_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Reddit account → user: ``id``, ``name`` (the username), no e-mail, the avatar."""
    icon = next(
        (v for k in ("snoovatar_img", "icon_img") if isinstance(v := profile.get(k), str) and v),
        None,
    )
    return {
        "id": profile["id"],
        "name": profile.get("name"),
        "email": None,
        "image": html.unescape(icon) if icon else None,
    }


SERVICE = Service(
    id="reddit",
    name="Reddit",
    type="oauth",
    factory="Reddit",
    authorization="https://www.reddit.com/api/v1/authorize",
    token="https://www.reddit.com/api/v1/access_token",
    userinfo="https://oauth.reddit.com/api/v1/me",
    scope="identity",
    checks=("state",),
    profile=reddit_profile,
    style=ProviderStyle(brand_color="#FF4500", text="#fff"),
    setup="https://www.reddit.com/prefs/apps/",
    notes="The `state` check only (Reddit has no PKCE). Reddit gives no e-mail. For a "
    'refresh token add `authorization={"params": {"duration": "permanent"}}`.',
    differs="The avatar (`snoovatar_img`, else `icon_img`, HTML-unescaped) is mapped "
    "(Auth.js's default profile leaves it out).",
)
