"""FusionAuth (OpenID Connect): endpoints on the user's FusionAuth, optionally per tenant."""

from typing import Any
from urllib.parse import quote

from ...errors import Configuration
from .._base import ProviderStyle
from ..oauth import ISSUER, Hooks, merge_options
from ..service import Join, ProfileMap, Service


def tenant(options: dict[str, Any]) -> dict[str, Any]:
    """``tenant_id``: the tenant's discovery document and login theme (``tenantId``)."""
    tenant_id = options.pop("tenant_id", None)
    if tenant_id is None:
        return options
    if not isinstance(tenant_id, str) or not tenant_id:
        raise Configuration("FusionAuth `tenant_id` must be the tenant's id (a string)")
    options.setdefault(
        "well_known", f"{ISSUER}/.well-known/openid-configuration?tenantId={quote(tenant_id)}"
    )
    params = {"params": {"tenantId": tenant_id}}
    options["authorization"] = merge_options(params, options.get("authorization"))
    return options


SERVICE = Service(
    id="fusionauth",
    name="FusionAuth",
    type="oidc",
    factory="FusionAuth",
    issuer_required="your FusionAuth's URL, e.g. ``https://auth.example.com`` (set it as the "
    "tenant's issuer too)",
    token=f"{ISSUER}/oauth2/token",
    userinfo=f"{ISSUER}/oauth2/userinfo",
    scope="openid offline_access email profile",
    checks=("pkce", "state"),
    profile=ProfileMap(
        id="sub",
        name=("name", "preferred_username", Join("given_name", "middle_name", "family_name")),
        email="email",
        image="picture",
    ),
    style=ProviderStyle(),
    hooks=Hooks(options=tenant),
    setup="https://fusionauth.io/docs/get-started/core-concepts/applications",
    notes="With several tenants pass `tenant_id=` (Auth.js's `tenantId`): discovery asks for "
    "that tenant and the login page gets its theme. The tenant's *Issuer* must be the "
    "FusionAuth URL (its default is a bare host name). Sign ID tokens with an RS256 or ES "
    "key, not the default HMAC key.",
    differs="No token-response `conform`: Auth.js strips a `WWW-Authenticate` header that "
    "its OAuth library misreads; nothing here reads that header on a 200.",
)
