"""Strava (OAuth 2.0, API v3)."""

from ..service import Join, ProfileMap, Service

SERVICE = Service(
    id="strava",
    name="Strava",
    type="oauth",
    factory="Strava",
    authorization="https://www.strava.com/api/v3/oauth/authorize",
    token="https://www.strava.com/api/v3/oauth/token",
    userinfo="https://www.strava.com/api/v3/athlete",
    scope="read",
    params={"approval_prompt": "auto"},
    client_auth="client_secret_post",
    profile=ProfileMap(id="id", name=Join("firstname", "lastname"), image="profile"),
    setup="https://www.strava.com/settings/api",
    notes="Strava gives no e-mail. Scopes are comma-separated (`read,activity:read`).",
)
