"""FreshBooks (OAuth 2.0)."""

from .._base import ProviderStyle
from ..service import Join, ProfileMap, Service

SERVICE = Service(
    id="freshbooks",
    name="Freshbooks",
    type="oauth",
    factory="Freshbooks",
    authorization="https://auth.freshbooks.com/service/auth/oauth/authorize",
    token="https://api.freshbooks.com/auth/oauth/token",
    userinfo="https://api.freshbooks.com/auth/api/v1/users/me",
    profile=ProfileMap(
        id="response.id",
        name=Join("response.first_name", "response.last_name"),
        email="response.email",
    ),
    style=ProviderStyle(bg="#0075dd", text="#fff"),
    setup="https://my.freshbooks.com/#/developer",
    notes="The identity is `GET /auth/api/v1/users/me` (its `response`); the businesses it "
    "belongs to are in `business_memberships`.",
    differs="A missing first or last name is left out (Auth.js writes `undefined`).",
)
