"""GitLab (OAuth 2.0), gitlab.com or a self-managed instance (``base_url``).

As Auth.js's: scope ``read_user``, PKCE, the user from ``/api/v4/user``
(``id`` as text, ``name`` else ``username``, ``email``, ``avatar_url``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OAuthProvider, merge_options


def gitlab_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """GitLab user → user."""
    ident = profile.get("sub")
    if ident is None:
        ident = profile.get("id")
    name = profile.get("name")
    return {
        "id": None if ident is None else str(ident),
        "name": name if name is not None else profile.get("username"),
        "email": profile.get("email"),
        "image": profile.get("avatar_url"),
    }


def _urls(base_url: str) -> dict[str, Any]:
    base = base_url.rstrip("/")
    return {
        "authorization": {"url": f"{base}/oauth/authorize", "params": {"scope": "read_user"}},
        "token": f"{base}/oauth/token",
        "userinfo": f"{base}/api/v4/user",
    }


@dataclass(frozen=True, kw_only=True)
class GitLabProvider(OAuthProvider):
    """The GitLab provider record (see :func:`GitLab`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "gitlab",
        "name": "GitLab",
        **_urls("https://gitlab.com"),
        "profile": gitlab_profile,
        "style": style("gitlab", bg="#FC6D26", text="#fff"),
    }


def GitLab(*, base_url: str | None = None, **options: Any) -> GitLabProvider:  # noqa: N802
    """The GitLab provider; ``base_url="https://gitlab.example.com"`` for your own instance.

    ``AUTH_GITLAB_ID``/``AUTH_GITLAB_SECRET`` give the application's credentials.
    """
    if base_url is not None:
        for key, value in _urls(base_url).items():
            options[key] = merge_options(value, options.get(key))
    return GitLabProvider.from_mapping(options)
