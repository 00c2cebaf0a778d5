"""Todoist (OAuth 2.0, API v1)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="todoist",
    name="Todoist",
    type="oauth",
    factory="Todoist",
    authorization="https://todoist.com/oauth/authorize",
    token="https://todoist.com/oauth/access_token",
    userinfo="https://api.todoist.com/api/v1/user",
    scope="data:read",
    client_auth="client_secret_post",
    profile=ProfileMap(id="id", name="full_name", email="email", image="avatar_big"),
    style=ProviderStyle(bg="#E44332", text="#000"),
    setup="https://developer.todoist.com/appconsole.html",
    notes="The user is `GET /api/v1/user` of Todoist's API v1.",
    differs="Auth.js reads the user from the Sync API v9 (`POST /sync/v9/sync`), which "
    "Todoist shut down on 2026-02-10; this provider asks API v1 for the same user object. "
    "The factory is `Todoist` (Auth.js exports `TodoistProvider`, the record type's name "
    "here).",
)
