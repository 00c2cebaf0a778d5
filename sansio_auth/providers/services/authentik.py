"""Authentik (OpenID Connect): the issuer is the user's own."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="authentik",
    name="Authentik",
    type="oidc",
    factory="Authentik",
    issuer_required="the application's URL, e.g. "
    "``https://authentik.example.com/application/o/my-app/``",
    style=ProviderStyle(),
    setup="https://goauthentik.io/docs/providers/oauth2",
)
