"""Notion (public integrations, OAuth 2.0).

As Auth.js's: ``owner=user``, PKCE, the user who installed the integration from
``GET /v1/users/me`` (``bot.owner.user``) with the ``Notion-Version`` header
``2022-06-28``: ``id``, ``name``, ``person.email``, ``avatar_url``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..fetch import bearer_request, get_json
from ._common import dig, style
from .oauth import OAuthProvider, Step, TokenSet

NOTION_API = "https://api.notion.com"
NOTION_VERSION = ("notion-version", "2022-06-28")


def notion_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Notion person → user."""
    return {
        "id": profile["id"],
        "name": profile.get("name"),
        "email": dig(profile, "person", "email"),
        "image": profile.get("avatar_url"),
    }


@dataclass(frozen=True, kw_only=True)
class NotionProvider(OAuthProvider):
    """The Notion provider record (see :func:`Notion`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "notion",
        "name": "Notion",
        "authorization": {
            "url": f"{NOTION_API}/v1/oauth/authorize",
            "params": {"owner": "user"},
        },
        "token": f"{NOTION_API}/v1/oauth/token",
        "userinfo": f"{NOTION_API}/v1/users/me",
        "profile": notion_profile,
        "style": style("notion", bg="#fff", text="#000"),
    }

    def request_userinfo(self, url: str, tokens: TokenSet) -> Step:
        """The bot user of the token, unwrapped to the person who owns it."""
        request = bearer_request(url, tokens["access_token"], NOTION_VERSION)
        bot = yield from get_json(request, "userinfo")
        user = dig(bot, "bot", "owner", "user")
        if not isinstance(user, dict):
            raise ValueError("the Notion integration is not owned by a user (owner=workspace?)")
        return user


def Notion(**options: Any) -> NotionProvider:  # noqa: N802 - Auth.js's name
    """The Notion provider; ``AUTH_NOTION_ID``/``AUTH_NOTION_SECRET`` (OAuth client id/secret)."""
    return NotionProvider.from_mapping(options)
