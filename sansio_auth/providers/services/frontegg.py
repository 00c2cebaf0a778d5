"""Frontegg (OpenID Connect): endpoints on the environment's Frontegg domain."""

from .._base import ProviderStyle
from ..oauth import ISSUER
from ..service import Service

SERVICE = Service(
    id="frontegg",
    name="Frontegg",
    type="oidc",
    factory="Frontegg",
    issuer_required="your environment's domain, e.g. ``https://my-app.frontegg.com``",
    well_known=f"{ISSUER}/oauth/.well-known/openid-configuration",
    authorization=f"{ISSUER}/oauth/authorize",
    token=f"{ISSUER}/oauth/token",
    userinfo=f"{ISSUER}/identity/resources/users/v2/me",
    style=ProviderStyle(),
    setup="https://portal.frontegg.com",
    notes="The client secret is the environment's API key. The profile is the ID token's "
    "standard claims (Frontegg's `profilePictureUrl` is not mapped, as in Auth.js).",
    differs="Its discovery document (`<issuer>/oauth/.well-known/openid-configuration`, "
    "Auth.js's `wellKnown`) is fetched for the signing keys: Auth.js never checks the ID "
    "token's signature.",
)
