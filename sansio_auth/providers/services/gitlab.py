"""GitLab (OAuth 2.0), gitlab.com or a self-managed instance."""

from typing import Any

from .._base import ProviderStyle
from ..oauth import Hooks, merge_options
from ..service import ProfileMap, Service


def base_url(options: dict[str, Any]) -> dict[str, Any]:
    """``base_url="https://gitlab.example.com"``: every URL on that instance."""
    base = options.pop("base_url", None)
    if base is None:
        return options
    base = str(base).rstrip("/")
    for key, path in (
        ("authorization", "/oauth/authorize"),
        ("token", "/oauth/token"),
        ("userinfo", "/api/v4/user"),
    ):
        options[key] = merge_options({"url": base + path}, options.get(key))
    return options


SERVICE = Service(
    id="gitlab",
    name="GitLab",
    type="oauth",
    factory="GitLab",
    authorization="https://gitlab.com/oauth/authorize",
    token="https://gitlab.com/oauth/token",
    userinfo="https://gitlab.com/api/v4/user",
    scope="read_user",
    profile=ProfileMap(
        id=("sub", "id"), name=("name", "username"), email="email", image="avatar_url"
    ),
    style=ProviderStyle(bg="#FC6D26", text="#fff"),
    hooks=Hooks(options=base_url),
    setup="https://docs.gitlab.com/ee/api/oauth2.html",
    notes='A self-managed instance: `GitLab(base_url="https://gitlab.example.com")`.',
)
