"""Azure AD B2C (OpenID Connect): the issuer is a user flow's."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="azure-ad-b2c",
    name="Azure AD B2C",
    type="oidc",
    factory="AzureADB2C",
    issuer_required="the user flow's, in the form B2C calls OpenID Connect Discovery "
    "compliant, e.g. ``https://contoso.b2clogin.com/tfp/<tenant id>/b2c_1_signupsignin/v2.0/``",
    profile=ProfileMap(id="sub", name=("name", "preferred_username"), email="emails.0"),
    style=ProviderStyle(text="#fff", bg="#0072c6"),
    setup="https://learn.microsoft.com/en-us/azure/active-directory-b2c/tutorial-register-applications",
    notes="Set the user flow's *Issuer (iss) claim* to "
    "`https://<domain>/tfp/<tenant id>/<user flow>/v2.0/` and use that as the issuer: the "
    "default form names no user flow, so the flow's discovery document would name another "
    "issuer than the one it was fetched for. Return the *Email Addresses* claim: the e-mail "
    "is the first of `emails`.",
)
