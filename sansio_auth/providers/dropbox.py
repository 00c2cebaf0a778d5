"""Dropbox (OAuth 2.0).

As Auth.js's: scope ``account_info.read`` with ``token_access_type=offline`` (a
refresh token), PKCE, the account from ``POST /2/users/get_current_account``
(``account_id``, ``name.display_name``, ``email``, ``profile_photo_url``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..events import OutboundRequest
from ..fetch import ACCEPT_JSON, get_json
from ._common import dig, style
from .oauth import OAuthProvider, Step, TokenSet


def dropbox_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Dropbox account → user."""
    return {
        "id": profile["account_id"],
        "name": dig(profile, "name", "display_name"),
        "email": profile.get("email"),
        "image": profile.get("profile_photo_url"),
    }


@dataclass(frozen=True, kw_only=True)
class DropboxProvider(OAuthProvider):
    """The Dropbox provider record (see :func:`Dropbox`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "dropbox",
        "name": "Dropbox",
        "authorization": {
            "url": "https://www.dropbox.com/oauth2/authorize",
            "params": {"token_access_type": "offline", "scope": "account_info.read"},
        },
        "token": "https://api.dropboxapi.com/oauth2/token",
        "userinfo": "https://api.dropboxapi.com/2/users/get_current_account",
        "profile": dropbox_profile,
        "style": style("dropbox", brand_color="#0061fe", text="#fff"),
    }

    def request_userinfo(self, url: str, tokens: TokenSet) -> Step:
        """Dropbox's RPC endpoints are ``POST`` (no argument: no body, no content type)."""
        request = OutboundRequest(
            method="POST",
            url=url,
            headers=(("authorization", f"Bearer {tokens['access_token']}"), ACCEPT_JSON),
        )
        profile = yield from get_json(request, "userinfo")
        if not isinstance(profile, dict):
            raise ValueError("the Dropbox account is not a JSON object")
        return profile


def Dropbox(**options: Any) -> DropboxProvider:  # noqa: N802 - Auth.js's name
    """The Dropbox provider; ``AUTH_DROPBOX_ID``/``AUTH_DROPBOX_SECRET`` are the app key/secret."""
    return DropboxProvider.from_mapping(options)
