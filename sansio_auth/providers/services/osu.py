"""osu! (OAuth 2.0, API v2)."""

from ..service import ProfileMap, Service

SERVICE = Service(
    id="osu",
    name="osu!",
    type="oauth",
    factory="Osu",
    authorization="https://osu.ppy.sh/oauth/authorize",
    token="https://osu.ppy.sh/oauth/token",
    userinfo="https://osu.ppy.sh/api/v2/me",
    scope="identify",
    profile=ProfileMap(id="id", name="username", image="avatar_url"),
    setup="https://osu.ppy.sh/home/account/edit#oauth",
    notes="osu! gives no e-mail.",
)
