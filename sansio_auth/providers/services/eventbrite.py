"""Eventbrite (OAuth 2.0)."""

from collections.abc import Mapping
from typing import Any

from .._base import ProviderStyle
from ..service import Service

IMAGES = "https://img.evbuc.com/https%3A%2F%2Fcdn.evbuc.com%2Fimages%2F{}%2F1%2Foriginal.jpg"


def eventbrite_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Eventbrite user → user: ``id``, ``name``, the primary address, the image by ``image_id``."""
    emails = profile.get("emails")
    primary = next(
        (
            e["email"]
            for e in (emails if isinstance(emails, list) else [])
            if isinstance(e, Mapping) and e.get("primary") is True
        ),
        None,
    )
    image_id = profile.get("image_id")
    return {
        "id": profile["id"],
        "name": profile.get("name"),
        "email": primary,
        "image": IMAGES.format(image_id) if image_id else None,
    }


SERVICE = Service(
    id="eventbrite",
    name="Eventbrite",
    type="oauth",
    factory="Eventbrite",
    authorization="https://www.eventbrite.com/oauth/authorize",
    token="https://www.eventbrite.com/oauth/token",
    userinfo="https://www.eventbriteapi.com/v3/users/me/",
    scope="user.profile",
    client_auth="client_secret_post",
    profile=eventbrite_profile,
    style=ProviderStyle(bg="#f05537", text="#fff"),
    setup="https://www.eventbrite.com/account-settings/apps",
    notes="The e-mail is the `primary` one of the user's `emails`; the image is built from "
    "`image_id`. The client id is the app's API key.",
)
