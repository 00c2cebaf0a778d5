"""Dribbble (OAuth 2.0)."""

from .._base import ProviderStyle
from ..oauth import Hooks
from ..quirks import scope_keyword
from ..service import ProfileMap, Service

SERVICE = Service(
    id="dribbble",
    name="Dribbble",
    type="oauth",
    factory="Dribbble",
    authorization="https://dribbble.com/oauth/authorize",
    token="https://dribbble.com/oauth/token",
    userinfo="https://api.dribbble.com/v2/user",
    scope="public",
    profile=ProfileMap(id="id", name="name", email="email", image="avatar_url"),
    style=ProviderStyle(bg="#000", text="#fff"),
    hooks=Hooks(options=scope_keyword),
    setup="https://dribbble.com/account/applications/new",
    notes='Scopes `public` (default) or `public upload`: `Dribbble(scope="public upload")`. '
    "The v2 user has no e-mail.",
    differs="Without a `scope` option Auth.js sends `scope=undefined`; this provider sends "
    "`public`, Dribbble's documented default.",
)
