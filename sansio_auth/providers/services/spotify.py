"""Spotify (OAuth 2.0)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="spotify",
    name="Spotify",
    type="oauth",
    factory="Spotify",
    authorization="https://accounts.spotify.com/authorize",
    token="https://accounts.spotify.com/api/token",
    userinfo="https://api.spotify.com/v1/me",
    scope="user-read-email",
    profile=ProfileMap(id="id", name="display_name", email="email", image="images.0.url"),
    style=ProviderStyle(brand_color="#1db954", text="#fff"),
    setup="https://developer.spotify.com/dashboard/applications",
)
