"""Netlify (OAuth 2.0)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="netlify",
    name="Netlify",
    type="oauth",
    factory="Netlify",
    authorization="https://app.netlify.com/authorize",
    token="https://api.netlify.com/oauth/token",
    userinfo="https://api.netlify.com/api/v1/user",
    scope="",
    profile=ProfileMap(id="id", name="full_name", email="email", image="avatar_url"),
    style=ProviderStyle(brand_color="#32e6e2"),
    setup="https://app.netlify.com/user/applications",
    notes="Netlify has no scopes: the authorization request carries an empty `scope`.",
)
