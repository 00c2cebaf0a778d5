"""Kinde (OpenID Connect): the issuer is the business's Kinde domain."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="kinde",
    name="Kinde",
    type="oidc",
    factory="Kinde",
    issuer_required="your Kinde domain, e.g. ``https://my-business.kinde.com``",
    checks=("state", "pkce"),
    style=ProviderStyle(text="#0F0F0F", bg="#fff"),
    setup="https://docs.kinde.com/developer-tools/about/using-kinde-without-an-sdk/",
    notes="Kinde's refresh tokens need the `offline` scope (not `offline_access`).",
)
