"""LinkedIn ("Sign In with LinkedIn using OpenID Connect")."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="linkedin",
    name="LinkedIn",
    type="oidc",
    factory="LinkedIn",
    issuer="https://www.linkedin.com/oauth",
    checks=("state",),
    client_auth="client_secret_post",
    style=ProviderStyle(bg="#069", text="#fff"),
    setup="https://www.linkedin.com/developers/apps/",
    notes="The `state` check only: LinkedIn supports PKCE for native apps only.",
)
