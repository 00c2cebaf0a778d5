"""Bungie.net (OAuth 2.0)."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import Configuration
from ...fetch import bearer_request, get_object
from ..oauth import Hooks, OAuthProvider, Step, TokenSet
from ..service import Service, read_path

API_KEY_HEADER = "x-api-key"


@dataclass(frozen=True, kw_only=True)
class BungieRecord(OAuthProvider):
    """Bungie's own option (the record type ``BungieProvider`` builds on)."""

    api_key: str | None = field(default=None, repr=False)
    """The application's API key, sent as ``X-API-Key`` with every Bungie.net API request;
    default ``AUTH_BUNGIE_KEY``."""

    def check(self) -> None:
        """Also: the API key (Bungie.net refuses API requests without one)."""
        super().check()
        if not self.api_key:
            raise Configuration(
                f"provider {self.id!r} needs api_key (or {self.env_prefix}KEY): the "
                "application's API key, which Bungie.net requires as X-API-Key"
            )


def api_key_header(options: dict[str, Any]) -> dict[str, Any]:
    """Auth.js documents ``headers={"X-API-Key": ...}``: read as ``api_key``."""
    headers = options.pop("headers", None)
    if headers is None:
        return options
    if not isinstance(headers, Mapping) or {k.lower() for k in headers} != {API_KEY_HEADER}:
        raise Configuration('Bungie `headers` takes {"X-API-Key": "..."} only (or use api_key=)')
    options.setdefault("api_key", next(iter(headers.values())))
    return options


def memberships(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """``GET /User/GetMembershipsForCurrentUser/`` with the bearer token and the API key."""
    api_key = getattr(provider, "api_key", None) or ""
    request = bearer_request(url, tokens["access_token"], (API_KEY_HEADER, api_key))
    return (yield from get_object(request, "userinfo"))


def bungie_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """``Response.bungieNetUser`` → user: id, display name, the avatar on bungie.net."""
    user = read_path(profile, "Response.bungieNetUser")
    if not isinstance(user, Mapping):
        raise ValueError("the Bungie.net answer has no Response.bungieNetUser")
    picture = user.get("profilePicturePath")
    image = None
    if isinstance(picture, str) and picture:
        image = f"https://www.bungie.net{'' if picture.startswith('/') else '/'}{picture}"
    return {
        "id": str(user["membershipId"]),
        "name": user.get("displayName"),
        "email": None,
        "image": image,
    }


SERVICE = Service(
    id="bungie",
    name="Bungie",
    type="oauth",
    factory="Bungie",
    authorization="https://www.bungie.net/en/OAuth/Authorize?reauth=true",
    token="https://www.bungie.net/platform/app/oauth/token/",
    userinfo="https://www.bungie.net/Platform/User/GetMembershipsForCurrentUser/",
    profile=bungie_profile,
    hooks=Hooks(options=api_key_header, userinfo=memberships),
    record=BungieRecord,
    setup="https://www.bungie.net/en/Application",
    notes="Needs the application's API key: `AUTH_BUNGIE_KEY` or `Bungie(api_key=...)` (or "
    "Auth.js's "
    '`headers={"X-API-Key": ...}`). Use a confidential client; the scope is fixed when the '
    "application is registered and never sent. Bungie gives no e-mail; HTTPS callback URLs "
    "only.",
    differs="Auth.js requests `/User/GetBungieAccount/{membershipId}/254/` with the "
    "`{membershipId}` placeholder never filled in, and its `headers` option is ignored by "
    "@auth/core: this provider asks `GetMembershipsForCurrentUser` (the same "
    "`Response.bungieNetUser`) with the API key.",
)
