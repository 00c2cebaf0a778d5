"""Asgardeo by WSO2 (OpenID Connect): the issuer is the organisation's."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="asgardeo",
    name="Asgardeo",
    type="oidc",
    factory="Asgardeo",
    issuer_required="the organisation's token endpoint, e.g. "
    "``https://api.asgardeo.io/t/my-org/oauth2/token``",
    style=ProviderStyle(bg="#000", text="#fff"),
    setup="https://wso2.com/asgardeo/docs/guides/applications/register-oidc-web-app/",
    notes="The issuer is the one the application's *Info* tab shows (it ends in "
    "`/oauth2/token`); discovery is at `<issuer>/.well-known/openid-configuration`. Make "
    "e-mail, first name and photo URL mandatory user attributes for them to reach the ID token.",
    differs="No `wellKnown` of `<issuer>/oauth2/token/.well-known/...`: Auth.js declares one "
    "but never fetches it, and with the documented issuer it would name a URL that does not "
    "exist.",
)
