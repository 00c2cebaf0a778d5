"""Okta (OpenID Connect): the issuer is the user's own."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="okta",
    name="Okta",
    type="oidc",
    factory="Okta",
    issuer_required="your org or authorization server, e.g. "
    "``https://dev-123456.okta.com`` or ``https://dev-123456.okta.com/oauth2/default``",
    checks=("pkce", "state"),
    style=ProviderStyle(bg="#000", text="#fff"),
    setup="https://developer.okta.com/docs/reference/api/oidc",
)
