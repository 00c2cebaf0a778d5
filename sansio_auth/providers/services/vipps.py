"""Vipps MobilePay (OpenID Connect; the profile from userinfo)."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="vipps",
    name="Vipps",
    type="oidc",
    factory="Vipps",
    default_issuer="https://api.vipps.no/access-management-1.0/access/",
    scope="openid name email",
    checks=("pkce", "state", "nonce"),
    id_token=False,
    style=ProviderStyle(brand_color="#f05c18"),
    setup="https://developer.vippsmobilepay.com/docs/APIs/login-api/",
    notes="The profile is the userinfo response (its `sub` must be the ID token's). The test "
    'environment is `Vipps(issuer="https://apitest.vipps.no/access-management-1.0/access/")`.',
)
