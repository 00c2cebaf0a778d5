"""Mastodon (OAuth 2.0): every instance is its own server, named by the issuer."""

from ..service import ProfileMap, Service

SERVICE = Service(
    id="mastodon",
    name="Mastodon",
    type="oauth",
    factory="Mastodon",
    issuer_required="your instance's URL, e.g. ``https://mastodon.social``",
    authorization="{issuer}/oauth/authorize",
    token="{issuer}/oauth/token",
    userinfo="{issuer}/api/v1/accounts/verify_credentials",
    scope="read",
    profile=ProfileMap(id="id", name="username", image="avatar_static"),
    setup="https://docs.joinmastodon.org/client/token/",
    notes="The issuer is the instance (`https://mastodon.social`); the application is "
    "registered on it (`/settings/applications`). Mastodon gives no e-mail.",
    differs="The issuer may also come from `AUTH_MASTODON_ISSUER` (Auth.js builds the URLs "
    "from the factory's `issuer` option only).",
)
