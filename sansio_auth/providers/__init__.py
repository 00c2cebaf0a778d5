"""Sign-in providers: the typed records and the built-in catalogue."""

from ._base import Provider, ProviderStyle, ProviderType
from .credentials import Credentials, CredentialsProvider
from .github import GitHub, GitHubProvider
from .google import Google, GoogleProvider
from .oauth import ClientOptions, Endpoint, OAuthProvider, OIDCProvider

PROVIDER_KINDS: dict[str, type[Provider]] = {
    "credentials": CredentialsProvider,
    "oauth": OAuthProvider,
    "oidc": OIDCProvider,
}
"""Record type of each provider ``type``, for providers given as mappings."""

__all__ = [
    "PROVIDER_KINDS",
    "ClientOptions",
    "Credentials",
    "CredentialsProvider",
    "Endpoint",
    "GitHub",
    "GitHubProvider",
    "Google",
    "GoogleProvider",
    "OAuthProvider",
    "OIDCProvider",
    "Provider",
    "ProviderStyle",
    "ProviderType",
]
