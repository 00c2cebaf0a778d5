"""Logto (OpenID Connect): the issuer is the tenant's."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="logto",
    name="Logto",
    type="oidc",
    factory="Logto",
    issuer_required="your tenant's OIDC issuer, e.g. ``https://my-tenant.logto.app/oidc``",
    scope="offline_access openid email profile",
    profile=ProfileMap(id="sub", name=("name", "username"), email="email", image="picture"),
    style=ProviderStyle(),
    setup="https://docs.logto.io/quick-starts/next-auth",
)
