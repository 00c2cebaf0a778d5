"""Zoom (OAuth 2.0).

As Auth.js's: no scope parameter (the app's scopes apply), PKCE, the user from
``/v2/users/me`` (``id``, ``first_name last_name``, ``email``, ``pic_url``). Where
Auth.js would show ``"undefined undefined"``, a missing part is left out and an
empty name falls back to ``display_name``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style, text
from .oauth import OAuthProvider


def zoom_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Zoom user → user."""
    parts = (text(profile.get("first_name")), text(profile.get("last_name")))
    name = " ".join(p for p in parts if p) or text(profile.get("display_name"))
    return {
        "id": profile["id"],
        "name": name,
        "email": profile.get("email"),
        "image": profile.get("pic_url"),
    }


@dataclass(frozen=True, kw_only=True)
class ZoomProvider(OAuthProvider):
    """The Zoom provider record (see :func:`Zoom`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "zoom",
        "name": "Zoom",
        "authorization": "https://zoom.us/oauth/authorize",
        "token": "https://zoom.us/oauth/token",
        "userinfo": "https://api.zoom.us/v2/users/me",
        "profile": zoom_profile,
        "style": style("zoom", bg="#0b5cff", text="#fff"),
    }


def Zoom(**options: Any) -> ZoomProvider:  # noqa: N802 - Auth.js's name
    """The Zoom provider; ``AUTH_ZOOM_ID``/``AUTH_ZOOM_SECRET`` give credentials."""
    return ZoomProvider.from_mapping(options)
