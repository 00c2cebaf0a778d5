"""IdentityServer4 (OpenID Connect): the issuer is the server's."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="identity-server4",
    name="IdentityServer4",
    type="oidc",
    factory="IdentityServer4",
    issuer_required="the server's base URL, e.g. ``https://demo.identityserver.io``",
    style=ProviderStyle(),
    setup="https://identityserver4.readthedocs.io/en/latest/",
)
