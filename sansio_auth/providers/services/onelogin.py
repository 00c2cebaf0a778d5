"""OneLogin (OpenID Connect): the issuer is the account's."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="onelogin",
    name="OneLogin",
    type="oidc",
    factory="OneLogin",
    issuer_required="your subdomain's OpenID Connect v2 issuer, e.g. "
    "``https://my-company.onelogin.com/oidc/2``",
    style=ProviderStyle(),
    setup="https://developers.onelogin.com/openid-connect/connect-to-onelogin",
    notes="The issuer includes `/oidc/2` (as the application's *SSO* tab and the discovery "
    "document name it).",
    differs="No `wellKnown` of `<issuer>/oidc/2/.well-known/...`: Auth.js declares one but "
    "never fetches it; it discovers at `<issuer>/.well-known/openid-configuration`, which "
    "works only with the documented issuer (with `/oidc/2`), as here.",
)
