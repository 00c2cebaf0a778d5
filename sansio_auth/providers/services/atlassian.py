"""Atlassian (OAuth 2.0 "3LO")."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="atlassian",
    name="Atlassian",
    type="oauth",
    factory="Atlassian",
    authorization="https://auth.atlassian.com/authorize",
    token="https://auth.atlassian.com/oauth/token",
    userinfo="https://api.atlassian.com/me",
    scope="read:me",
    params={"audience": "api.atlassian.com"},
    checks=("state",),
    profile=ProfileMap(id="account_id", name="name", email="email", image="picture"),
    style=ProviderStyle(bg="#fff", text="#0052cc"),
    setup="https://developer.atlassian.com/cloud/jira/software/oauth-2-3lo-apps/",
    notes="Add `offline_access` to the scope for a refresh token.",
)
