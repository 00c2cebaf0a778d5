"""Roblox (OpenID Connect; ES256 ID tokens)."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="roblox",
    name="Roblox",
    type="oidc",
    factory="Roblox",
    issuer="https://apis.roblox.com/oauth/",
    scope="openid profile",
    checks=("pkce", "state"),
    style=ProviderStyle(bg="#5865F2", text="#fff"),
    setup="https://create.roblox.com/dashboard/credentials",
    notes="Roblox gives no e-mail to third-party apps: the name is the display name, the "
    "image the avatar headshot (null until Roblox has generated one).",
)
