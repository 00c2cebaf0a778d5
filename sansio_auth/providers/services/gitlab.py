"""GitLab (OAuth 2.0), gitlab.com or a self-managed instance."""

from .._base import ProviderStyle
from ..oauth import Hooks
from ..quirks import base_url_option
from ..service import ProfileMap, Service

base_url = base_url_option(
    "base_url",
    {"authorization": "/oauth/authorize", "token": "/oauth/token", "userinfo": "/api/v4/user"},
)
"""``base_url="https://gitlab.example.com"``: every URL on that instance."""


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
