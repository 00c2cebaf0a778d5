"""Auth0 (OpenID Connect): the issuer is the user's own."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="auth0",
    name="Auth0",
    type="oidc",
    factory="Auth0",
    issuer_required="your tenant's domain, e.g. ``https://dev-abc123.us.auth0.com/``",
    style=ProviderStyle(bg="#EB5424", text="#fff"),
    setup="https://auth0.com/docs/authenticate",
)
