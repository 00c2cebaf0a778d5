"""Beyond Identity (OpenID Connect): the issuer is the application's."""

from collections.abc import Mapping
from typing import Any

from .._base import ProviderStyle
from ..service import Service


def user(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Auth.js's mapping: no picture, and ``preferred_username`` kept with the user."""
    return {
        "id": profile["sub"],
        "email": profile.get("email"),
        "name": profile.get("name"),
        "image": None,
        "preferred_username": profile.get("preferred_username"),
    }


SERVICE = Service(
    id="beyondidentity",
    name="Beyond Identity",
    type="oidc",
    factory="BeyondIdentity",
    issuer_required="the application's *Issuer*, e.g. ``https://auth-us.beyondidentity.com"
    "/v1/tenants/<tenant>/realms/<realm>/applications/<application>``",
    profile=user,
    style=ProviderStyle(bg="#5077c5", text="#fff"),
    setup="https://developer.beyondidentity.com/docs/next-auth",
    notes="The user also keeps the `preferred_username` claim (as Auth.js's profile does; "
    "database adapters store it with the user's other fields).",
)
