"""EVE Online (EVE SSO v2, OAuth 2.0)."""

from collections.abc import Mapping
from typing import Any

from ..service import Service


def eve_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """The verified character → user: its id (as text), name and portrait; no e-mail."""
    character = profile["CharacterID"]
    return {
        "id": str(character),
        "name": profile.get("CharacterName"),
        "email": None,
        "image": f"https://image.eveonline.com/Character/{character}_128.jpg",
    }


SERVICE = Service(
    id="eveonline",
    name="EVE Online",
    type="oauth",
    factory="EVEOnline",
    authorization="https://login.eveonline.com/v2/oauth/authorize",
    token="https://login.eveonline.com/v2/oauth/token",
    userinfo="https://login.eveonline.com/oauth/verify",
    scope="publicData",
    checks=("state",),
    profile=eve_profile,
    setup="https://developers.eveonline.com/applications",
    notes="The `state` check only. The character comes from `GET /oauth/verify`; CCP's "
    "migration guide recommends decoding the JWT access token instead, and keeps the "
    "endpoint working. EVE gives no e-mail.",
)
