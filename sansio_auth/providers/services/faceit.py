"""FACEIT (FACEIT Connect, OAuth 2.0)."""

from ..service import ProfileMap, Service

SERVICE = Service(
    id="faceit",
    name="FACEIT",
    type="oauth",
    factory="FACEIT",
    authorization="https://accounts.faceit.com/accounts?redirect_popup=true",
    token="https://api.faceit.com/auth/v1/oauth/token",
    userinfo="https://api.faceit.com/auth/v1/resources/userinfo",
    scope="openid profile email",
    profile=ProfileMap(id="guid", name="name", email="email", image="picture"),
    setup="https://developers.faceit.com/apps",
    notes="The token request authenticates with HTTP Basic, which FACEIT requires. The "
    "userinfo endpoint needs the `profile`/`email` scopes (`openid` alone gets "
    "`insufficient_scope`).",
    differs="The scope `openid profile email` is asked for explicitly: Auth.js gets the same "
    "scope from its default for providers without one, which this library only applies "
    "to OpenID Connect providers.",
)
