"""42 School (the 42 intra API, OAuth 2.0)."""

from ..service import ProfileMap, Service

SERVICE = Service(
    id="42-school",
    name="42 School",
    type="oauth",
    factory="FortyTwo",
    aliases=("FortyTwoSchool",),
    authorization="https://api.intra.42.fr/oauth/authorize",
    token="https://api.intra.42.fr/oauth/token",
    userinfo="https://api.intra.42.fr/v2/me",
    scope="public",
    profile=ProfileMap(id="id", name="usual_full_name", email="email", image="image.link"),
    setup="https://profile.intra.42.fr/oauth/applications/new",
    notes="The user is `GET /v2/me`; the name is `usual_full_name` (empty when 42 has none).",
)
