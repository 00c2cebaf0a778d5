"""Sign-in providers: the typed records and the built-in catalogue."""

from ._base import Provider, ProviderStyle, ProviderType
from .apple import Apple, AppleProvider, apple_client_secret
from .atlassian import Atlassian, AtlassianProvider
from .bitbucket import Bitbucket, BitbucketProvider
from .catalogue import BUILTIN_PROVIDERS
from .credentials import Credentials, CredentialsProvider
from .discord import Discord, DiscordProvider
from .dropbox import Dropbox, DropboxProvider
from .email import Email, EmailProvider
from .facebook import Facebook, FacebookProvider
from .github import GitHub, GitHubProvider
from .gitlab import GitLab, GitLabProvider
from .google import Google, GoogleProvider
from .issuer_only import (
    ZITADEL,
    Auth0,
    Auth0Provider,
    Authentik,
    AuthentikProvider,
    Cognito,
    CognitoProvider,
    Keycloak,
    KeycloakProvider,
    Okta,
    OktaProvider,
    ZitadelProvider,
)
from .linkedin import LinkedIn, LinkedInProvider
from .microsoft_entra_id import MicrosoftEntraID, MicrosoftEntraIDProvider
from .notion import Notion, NotionProvider
from .oauth import ClientOptions, Endpoint, OAuthProvider, OIDCProvider
from .reddit import Reddit, RedditProvider
from .salesforce import Salesforce, SalesforceProvider
from .slack import Slack, SlackProvider
from .spotify import Spotify, SpotifyProvider
from .twitch import Twitch, TwitchProvider
from .twitter import Twitter, TwitterProvider
from .webauthn import Passkey, WebAuthn, WebAuthnProvider
from .zoom import Zoom, ZoomProvider

Zitadel = ZITADEL
"""The ZITADEL provider under a Python-cased name too."""

PROVIDER_KINDS: dict[str, type[Provider]] = {
    "credentials": CredentialsProvider,
    "email": EmailProvider,
    "oauth": OAuthProvider,
    "oidc": OIDCProvider,
    "webauthn": WebAuthnProvider,
}
"""Record type of each provider ``type``, for providers given as mappings.

The flows of each kind are registered with its record type in ``sansio_auth._flows.kinds``.
"""

__all__ = [
    "BUILTIN_PROVIDERS",
    "PROVIDER_KINDS",
    "ZITADEL",
    "Apple",
    "AppleProvider",
    "Atlassian",
    "AtlassianProvider",
    "Auth0",
    "Auth0Provider",
    "Authentik",
    "AuthentikProvider",
    "Bitbucket",
    "BitbucketProvider",
    "ClientOptions",
    "Cognito",
    "CognitoProvider",
    "Credentials",
    "CredentialsProvider",
    "Discord",
    "DiscordProvider",
    "Dropbox",
    "DropboxProvider",
    "Email",
    "EmailProvider",
    "Endpoint",
    "Facebook",
    "FacebookProvider",
    "GitHub",
    "GitHubProvider",
    "GitLab",
    "GitLabProvider",
    "Google",
    "GoogleProvider",
    "Keycloak",
    "KeycloakProvider",
    "LinkedIn",
    "LinkedInProvider",
    "MicrosoftEntraID",
    "MicrosoftEntraIDProvider",
    "Notion",
    "NotionProvider",
    "OAuthProvider",
    "OIDCProvider",
    "Okta",
    "OktaProvider",
    "Passkey",
    "Provider",
    "ProviderStyle",
    "ProviderType",
    "Reddit",
    "RedditProvider",
    "Salesforce",
    "SalesforceProvider",
    "Slack",
    "SlackProvider",
    "Spotify",
    "SpotifyProvider",
    "Twitch",
    "TwitchProvider",
    "Twitter",
    "TwitterProvider",
    "WebAuthn",
    "WebAuthnProvider",
    "Zitadel",
    "ZitadelProvider",
    "Zoom",
    "ZoomProvider",
    "apple_client_secret",
]
