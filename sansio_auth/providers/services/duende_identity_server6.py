"""Duende IdentityServer 6 (OpenID Connect): the issuer is the server's."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="duende-identity-server6",
    name="DuendeIdentityServer6",
    type="oidc",
    factory="DuendeIdentityServer6",
    issuer_required="the server's base URL (with its path base), e.g. "
    "``https://demo.duendesoftware.com``",
    style=ProviderStyle(),
    setup="https://docs.duendesoftware.com/identityserver/v6",
)
