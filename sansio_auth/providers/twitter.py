"""Twitter / X (OAuth 2.0 with PKCE; OAuth 1.0a is not supported, as in Auth.js v5).

As Auth.js's: scope ``users.read tweet.read offline.access``, checks ``pkce`` and
``state``, the user from ``/2/users/me?user.fields=profile_image_url`` inside its
``data`` envelope. X gives no e-mail unless the app asks for it (scope
``users.email`` and ``user.fields=confirmed_email``); either field name is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OAuthProvider


def twitter_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """``{"data": user}`` → user: ``id``, ``name``, e-mail if any, ``profile_image_url``."""
    data = profile["data"]
    return {
        "id": data["id"],
        "name": data.get("name"),
        "email": data.get("email") or data.get("confirmed_email"),
        "image": data.get("profile_image_url"),
    }


@dataclass(frozen=True, kw_only=True)
class TwitterProvider(OAuthProvider):
    """The Twitter provider record (see :func:`Twitter`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "twitter",
        "name": "Twitter",
        "authorization": {
            "url": "https://x.com/i/oauth2/authorize",
            "params": {"scope": "users.read tweet.read offline.access"},
        },
        "token": "https://api.x.com/2/oauth2/token",
        "userinfo": {
            "url": "https://api.x.com/2/users/me",
            "params": {"user.fields": "profile_image_url"},
        },
        "checks": ("pkce", "state"),
        "profile": twitter_profile,
        "style": style("twitter", bg="#1da1f2", text="#fff"),
    }


def Twitter(**options: Any) -> TwitterProvider:  # noqa: N802 - Auth.js's name
    """The Twitter provider; ``AUTH_TWITTER_ID``/``AUTH_TWITTER_SECRET`` (OAuth 2.0 client)."""
    return TwitterProvider.from_mapping(options)
