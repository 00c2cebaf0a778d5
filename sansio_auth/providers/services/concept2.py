"""Concept2 Logbook (OAuth 2.0)."""

from ..service import ProfileMap, Service

SERVICE = Service(
    id="concept2",
    name="Concept2",
    type="oauth",
    factory="Concept2",
    authorization="https://log.concept2.com/oauth/authorize",
    token="https://log.concept2.com/oauth/access_token",
    userinfo="https://log.concept2.com/api/users/me",
    scope="user:read,results:write",
    profile=ProfileMap(
        id="data.id", name="data.username", email="data.email", image="data.profile_image"
    ),
    setup="https://log.concept2.com/developers/keys",
    notes="Scopes are comma-separated. Develop against `https://log-dev.concept2.com` "
    "(override the three endpoints) until Concept2 approves the application.",
)
