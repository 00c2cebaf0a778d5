"""Keycloak (OpenID Connect): the issuer is the user's own."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="keycloak",
    name="Keycloak",
    type="oidc",
    factory="Keycloak",
    issuer_required="the realm URL, e.g. ``https://sso.example.com/realms/my-realm``",
    style=ProviderStyle(brand_color="#428bca", text="#fff"),
    setup="https://www.keycloak.org/docs/latest/server_admin/#_oidc_clients",
)
