"""Coinbase (OAuth 2.0)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="coinbase",
    name="Coinbase",
    type="oauth",
    factory="Coinbase",
    authorization="https://login.coinbase.com/oauth2/auth",
    token="https://login.coinbase.com/oauth2/token",
    userinfo="https://api.coinbase.com/v2/user",
    scope="wallet:user:email wallet:user:read",
    profile=ProfileMap(id="data.id", name="data.name", email="data.email", image="data.avatar_url"),
    style=ProviderStyle(brand_color="#0052ff"),
    setup="https://portal.cdp.coinbase.com/",
    notes="The user is `GET /v2/user` (its `data`); `wallet:user:email` gives the e-mail. "
    "Access tokens last an hour; add `offline_access` to the scope for a refresh token.",
)
