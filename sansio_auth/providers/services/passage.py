"""Passage by 1Password (OpenID Connect): the issuer is the app's hosted login domain."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="passage",
    name="Passage",
    type="oidc",
    factory="Passage",
    issuer_required="the app's hosted login URL, e.g. ``https://my-app.withpassage.com``",
    style=ProviderStyle(brand_color="#3d53f6"),
    setup="https://docs.passage.id/hosted-login/oidc-client-configuration",
)
