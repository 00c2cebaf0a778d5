"""ZITADEL (OpenID Connect): the issuer is the user's own."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="zitadel",
    name="ZITADEL",
    type="oidc",
    factory="ZITADEL",
    aliases=("Zitadel",),
    issuer_required="your instance, e.g. ``https://my-instance.zitadel.cloud``",
    style=ProviderStyle(),
    setup="https://zitadel.com/docs/guides/integrate/oauth-recommended-flows",
)
