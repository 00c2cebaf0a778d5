"""Google (OpenID Connect)."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="google",
    name="Google",
    type="oidc",
    factory="Google",
    issuer="https://accounts.google.com",
    style=ProviderStyle(brand_color="#1a73e8", text="#fff"),
    setup="https://console.developers.google.com/apis/credentials",
    notes='For a refresh token pass `authorization={"params": {"access_type": "offline", '
    '"prompt": "consent"}}`.',
)
