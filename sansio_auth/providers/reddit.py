"""Reddit (OAuth 2.0).

As Auth.js's: scope ``identity``, the ``state`` check only (Reddit has no PKCE),
the user from ``oauth.reddit.com/api/v1/me``. Auth.js maps it with the OIDC default
(``id``, ``name``); the avatar (``icon_img``, HTML-escaped by Reddit) is added here.
Reddit wants a descriptive ``User-Agent``: the binding's HTTP client sends one.
For a refresh token add ``authorization={"params": {"duration": "permanent"}}``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style, text
from .oauth import OAuthProvider


def reddit_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Reddit account → user: ``id``, ``name`` (the username), no e-mail, ``icon_img``."""
    icon = text(profile.get("snoovatar_img")) or text(profile.get("icon_img"))
    return {
        "id": profile["id"],
        "name": profile.get("name"),
        "email": None,
        "image": html.unescape(icon) if icon else None,
    }


@dataclass(frozen=True, kw_only=True)
class RedditProvider(OAuthProvider):
    """The Reddit provider record (see :func:`Reddit`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "reddit",
        "name": "Reddit",
        "authorization": {
            "url": "https://www.reddit.com/api/v1/authorize",
            "params": {"scope": "identity"},
        },
        "token": "https://www.reddit.com/api/v1/access_token",
        "userinfo": "https://oauth.reddit.com/api/v1/me",
        "checks": ("state",),
        "profile": reddit_profile,
        "style": style("reddit", brand_color="#FF4500", text="#fff"),
    }


def Reddit(**options: Any) -> RedditProvider:  # noqa: N802 - Auth.js's name
    """The Reddit provider; ``AUTH_REDDIT_ID``/``AUTH_REDDIT_SECRET`` give credentials."""
    return RedditProvider.from_mapping(options)
