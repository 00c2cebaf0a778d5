"""Webex (Cisco Webex integrations, OAuth 2.0)."""

from ..oauth import Hooks
from ..quirks import base_url_option
from ..service import ProfileMap, Service

API = "https://webexapis.com/v1"

api_base_url = base_url_option(
    "api_base_url",
    {"authorization": "/authorize", "token": "/access_token", "userinfo": "/people/me"},
)
"""``api_base_url="https://..."`` (Auth.js: ``apiBaseUrl``): every URL on that API."""


SERVICE = Service(
    id="webex",
    name="Webex",
    type="oauth",
    factory="Webex",
    authorization=f"{API}/authorize",
    token=f"{API}/access_token",
    userinfo=f"{API}/people/me",
    scope="spark:kms spark:people_read",
    profile=ProfileMap(id="id", name="displayName", email="emails.0", image="avatar"),
    hooks=Hooks(options=api_base_url),
    setup="https://developer.webex.com/my-apps/new/integration",
    notes="The e-mail is the first of the person's `emails`. Another API base: "
    '`Webex(api_base_url="https://...")` (Auth.js: `apiBaseUrl`).',
)
