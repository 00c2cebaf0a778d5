"""Sign-in providers: the typed records and the built-in catalogue."""

from ._base import Provider, ProviderStyle, ProviderType
from .credentials import Credentials, CredentialsProvider

PROVIDER_KINDS: dict[str, type[Provider]] = {"credentials": CredentialsProvider}
"""Record type of each provider ``type``, for providers given as mappings."""

__all__ = [
    "PROVIDER_KINDS",
    "Credentials",
    "CredentialsProvider",
    "Provider",
    "ProviderStyle",
    "ProviderType",
]
