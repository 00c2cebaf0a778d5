"""Discord (OAuth 2.0).

As Auth.js's: scope ``identify email``, PKCE, the user from ``/api/users/@me`` with
its avatar as a CDN URL: the uploaded avatar (``.gif`` when animated, ``a_`` hash),
else the default avatar — ``(id >> 22) % 6`` for new usernames (discriminator
``"0"``), ``discriminator % 5`` for legacy ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OAuthProvider

CDN = "https://cdn.discordapp.com"


def avatar_url(profile: Mapping[str, Any]) -> str:
    """The user's avatar on Discord's CDN, following Discord's image formatting rules."""
    user_id = str(profile["id"])
    avatar = profile.get("avatar")
    if isinstance(avatar, str) and avatar:
        extension = "gif" if avatar.startswith("a_") else "png"
        return f"{CDN}/avatars/{user_id}/{avatar}.{extension}"
    discriminator = str(profile.get("discriminator") or "0")
    if discriminator == "0" or not (discriminator.isascii() and discriminator.isdigit()):
        index = (int(user_id) >> 22) % 6
    else:
        index = int(discriminator) % 5
    return f"{CDN}/embed/avatars/{index}.png"


def discord_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Discord user → user: ``id``, ``global_name`` else ``username``, ``email``, avatar."""
    name = profile.get("global_name")
    return {
        "id": profile["id"],
        "name": name if name is not None else profile.get("username"),
        "email": profile.get("email"),
        "image": avatar_url(profile),
    }


@dataclass(frozen=True, kw_only=True)
class DiscordProvider(OAuthProvider):
    """The Discord provider record (see :func:`Discord`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "discord",
        "name": "Discord",
        "authorization": {
            "url": "https://discord.com/api/oauth2/authorize",
            "params": {"scope": "identify email"},
        },
        "token": "https://discord.com/api/oauth2/token",
        "userinfo": "https://discord.com/api/users/@me",
        "profile": discord_profile,
        "style": style("discord", bg="#5865F2", text="#fff"),
    }


def Discord(**options: Any) -> DiscordProvider:  # noqa: N802 - Auth.js's name
    """The Discord provider; ``AUTH_DISCORD_ID``/``AUTH_DISCORD_SECRET`` give credentials."""
    return DiscordProvider.from_mapping(options)
