"""Facebook Login (OAuth 2.0).

Like Auth.js's: scope ``email``, PKCE, the user from the Graph API's ``/me`` with
``fields=id,name,email,picture`` (``picture.data.url`` as the image). Different: the
login dialog is pinned to Graph API v25.0 (Auth.js pins v19.0, retired in May 2026),
and the client authenticates with ``client_secret_post``, the form Meta documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import dig, style
from .oauth import OAuthProvider

GRAPH_VERSION = "v25.0"


def facebook_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Graph ``/me`` → user: ``id``, ``name``, ``email``, ``picture.data.url``."""
    return {
        "id": profile["id"],
        "name": profile.get("name"),
        "email": profile.get("email"),
        "image": dig(profile, "picture", "data", "url"),
    }


@dataclass(frozen=True, kw_only=True)
class FacebookProvider(OAuthProvider):
    """The Facebook provider record (see :func:`Facebook`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "facebook",
        "name": "Facebook",
        "authorization": {
            "url": f"https://www.facebook.com/{GRAPH_VERSION}/dialog/oauth",
            "params": {"scope": "email"},
        },
        "token": "https://graph.facebook.com/oauth/access_token",
        "userinfo": {
            "url": "https://graph.facebook.com/me",
            "params": {"fields": "id,name,email,picture"},
        },
        "client": {"token_endpoint_auth_method": "client_secret_post"},
        "profile": facebook_profile,
        "style": style("facebook", bg="#006aff", text="#fff"),
    }


def Facebook(**options: Any) -> FacebookProvider:  # noqa: N802 - Auth.js's name
    """The Facebook provider; ``AUTH_FACEBOOK_ID``/``AUTH_FACEBOOK_SECRET`` are the app's."""
    return FacebookProvider.from_mapping(options)
