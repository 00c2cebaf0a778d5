"""WordPress.com (OAuth 2.0; also Jetpack-connected sites)."""

from ..service import ProfileMap, Service

SERVICE = Service(
    id="wordpress",
    name="WordPress.com",
    type="oauth",
    factory="WordPress",
    authorization="https://public-api.wordpress.com/oauth2/authorize",
    token="https://public-api.wordpress.com/oauth2/token",
    userinfo="https://public-api.wordpress.com/rest/v1/me",
    scope="auth",
    profile=ProfileMap(id="ID", name="display_name", email="email", image="avatar_URL"),
    setup="https://developer.wordpress.com/apps/",
    notes="Scope `auth` gives a token for `/rest/v1/me` only.",
)
