"""Atlassian (OAuth 2.0 "3LO").

As Auth.js's: ``audience=api.atlassian.com``, scope ``read:me``, the ``state``
check only, the user from ``api.atlassian.com/me`` (``account_id``, ``name``,
``email``, ``picture``). Add ``offline_access`` to the scope for a refresh token.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OAuthProvider


def atlassian_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Atlassian account → user."""
    return {
        "id": profile["account_id"],
        "name": profile.get("name"),
        "email": profile.get("email"),
        "image": profile.get("picture"),
    }


@dataclass(frozen=True, kw_only=True)
class AtlassianProvider(OAuthProvider):
    """The Atlassian provider record (see :func:`Atlassian`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "atlassian",
        "name": "Atlassian",
        "authorization": {
            "url": "https://auth.atlassian.com/authorize",
            "params": {"audience": "api.atlassian.com", "scope": "read:me"},
        },
        "token": "https://auth.atlassian.com/oauth/token",
        "userinfo": "https://api.atlassian.com/me",
        "checks": ("state",),
        "profile": atlassian_profile,
        "style": style("atlassian", bg="#fff", text="#0052cc"),
    }


def Atlassian(**options: Any) -> AtlassianProvider:  # noqa: N802 - Auth.js's name
    """The Atlassian provider; ``AUTH_ATLASSIAN_ID``/``AUTH_ATLASSIAN_SECRET`` give credentials."""
    return AtlassianProvider.from_mapping(options)
