"""Spotify (OAuth 2.0).

As Auth.js's: scope ``user-read-email``, PKCE, the user from ``/v1/me``
(``id``, ``display_name``, ``email``, the first of ``images``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import dig, style
from .oauth import OAuthProvider


def spotify_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Spotify user → user."""
    images = profile.get("images")
    first = images[0] if isinstance(images, list) and images else None
    return {
        "id": profile["id"],
        "name": profile.get("display_name"),
        "email": profile.get("email"),
        "image": dig(first, "url"),
    }


@dataclass(frozen=True, kw_only=True)
class SpotifyProvider(OAuthProvider):
    """The Spotify provider record (see :func:`Spotify`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "spotify",
        "name": "Spotify",
        "authorization": {
            "url": "https://accounts.spotify.com/authorize",
            "params": {"scope": "user-read-email"},
        },
        "token": "https://accounts.spotify.com/api/token",
        "userinfo": "https://api.spotify.com/v1/me",
        "profile": spotify_profile,
        "style": style("spotify", brand_color="#1db954", text="#fff"),
    }


def Spotify(**options: Any) -> SpotifyProvider:  # noqa: N802 - Auth.js's name
    """The Spotify provider; ``AUTH_SPOTIFY_ID``/``AUTH_SPOTIFY_SECRET`` give credentials."""
    return SpotifyProvider.from_mapping(options)
