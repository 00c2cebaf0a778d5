"""Discord (OAuth 2.0)."""

from collections.abc import Mapping
from typing import Any

from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Profile, Step, TokenSet
from ..service import ProfileMap, Service

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


def add_image_url(
    provider: OAuthProvider, profile: Profile, tokens: TokenSet, params: Mapping[str, Any]
) -> Step:
    """``profile["image_url"]``: the avatar URL, as Auth.js adds it to Discord's profile."""
    yield from ()
    return {**profile, "image_url": avatar_url(profile)}


SERVICE = Service(
    id="discord",
    name="Discord",
    type="oauth",
    factory="Discord",
    authorization="https://discord.com/api/oauth2/authorize",
    token="https://discord.com/api/oauth2/token",
    userinfo="https://discord.com/api/users/@me",
    scope="identify email",
    profile=ProfileMap(id="id", name=("global_name", "username"), email="email", image="image_url"),
    hooks=Hooks(complete_profile=add_image_url),
    style=ProviderStyle(bg="#5865F2", text="#fff"),
    setup="https://discord.com/developers/applications",
    notes="The profile gets `image_url` (as in Auth.js). Avatars follow Discord's CDN "
    "rules: animated `a_` hashes as `.gif`, default avatars by id (new usernames) or "
    "discriminator (legacy ones).",
)
