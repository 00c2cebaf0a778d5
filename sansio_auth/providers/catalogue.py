"""The built-in providers by id: each a factory usable as a value or called with overrides."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .apple import Apple
from .atlassian import Atlassian
from .bitbucket import Bitbucket
from .discord import Discord
from .dropbox import Dropbox
from .facebook import Facebook
from .github import GitHub
from .gitlab import GitLab
from .google import Google
from .issuer_only import (
    ISSUER_ONLY,
    ZITADEL,
    Auth0,
    Authentik,
    Cognito,
    Keycloak,
    Okta,
)
from .linkedin import LinkedIn
from .microsoft_entra_id import MicrosoftEntraID
from .notion import Notion
from .oauth import OAuthProvider
from .reddit import Reddit
from .salesforce import Salesforce
from .slack import Slack
from .spotify import Spotify
from .twitch import Twitch
from .twitter import Twitter
from .zoom import Zoom

BUILTIN_PROVIDERS: Mapping[str, Callable[..., OAuthProvider]] = {
    "apple": Apple,
    "atlassian": Atlassian,
    "auth0": Auth0,
    "authentik": Authentik,
    "bitbucket": Bitbucket,
    "cognito": Cognito,
    "discord": Discord,
    "dropbox": Dropbox,
    "facebook": Facebook,
    "github": GitHub,
    "gitlab": GitLab,
    "google": Google,
    "keycloak": Keycloak,
    "linkedin": LinkedIn,
    "microsoft-entra-id": MicrosoftEntraID,
    "notion": Notion,
    "okta": Okta,
    "reddit": Reddit,
    "salesforce": Salesforce,
    "slack": Slack,
    "spotify": Spotify,
    "twitch": Twitch,
    "twitter": Twitter,
    "zitadel": ZITADEL,
    "zoom": Zoom,
}
"""Every built-in OAuth/OIDC provider factory, by provider id."""

ISSUER_REQUIRED = frozenset(ISSUER_ONLY)
"""Built-ins that only work once given an issuer (``AUTH_<ID>_ISSUER``)."""
