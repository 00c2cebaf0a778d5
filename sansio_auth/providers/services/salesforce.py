"""Salesforce (OpenID Connect; the profile from userinfo)."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="salesforce",
    name="Salesforce",
    type="oidc",
    factory="Salesforce",
    default_issuer="https://login.salesforce.com",
    checks=("pkce", "state", "nonce"),
    id_token=False,
    style=ProviderStyle(bg="#00a1e0", text="#fff"),
    setup="https://help.salesforce.com/apex/HTViewHelpDoc?id=xcloud.connected_app_create_openid_connect.htm",
    notes="`https://test.salesforce.com` for sandboxes, or your My Domain "
    "(`https://<MyDomain>.my.salesforce.com`) as the issuer. The profile is the userinfo "
    "response (its `sub`, the user's identity URL, must be the ID token's).",
    differs="`AUTH_SALESFORCE_ISSUER` overrides the default issuer whether the provider is "
    "passed as a value or called (Auth.js: only as a value).",
)
