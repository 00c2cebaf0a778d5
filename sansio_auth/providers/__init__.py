"""Sign-in providers: the typed records and the built-in catalogue.

The built-in OAuth/OIDC services are rows (:mod:`sansio_auth.providers.service`); their
record types and factories are generated into :mod:`sansio_auth.providers.builtin`.
"""

from . import builtin
from ._base import Provider, ProviderStyle, ProviderType
from .builtin import *  # noqa: F403 - a record type and a factory per service
from .credentials import Credentials, CredentialsProvider
from .email import Email, EmailProvider, Nodemailer
from .email_apis import (
    EMAIL_API_FACTORIES,
    ForwardEmail,
    ForwardEmailProvider,
    HTTPEmailProvider,
    Loops,
    LoopsProvider,
    Mailgun,
    MailgunProvider,
    Postmark,
    PostmarkProvider,
    Resend,
    ResendProvider,
    SendGrid,
    SendGridProvider,
)
from .oauth import ClientOptions, Endpoint, Hooks, OAuthProvider, OIDCProvider
from .password import Password, PasswordProvider
from .services.apple import apple_client_secret
from .webauthn import Passkey, WebAuthn, WebAuthnProvider

PROVIDER_KINDS: dict[str, type[Provider]] = {
    "credentials": CredentialsProvider,
    "email": EmailProvider,
    "oauth": OAuthProvider,
    "oidc": OIDCProvider,
    "password": PasswordProvider,
    "webauthn": WebAuthnProvider,
}
"""Record type of each provider ``type``, for providers given as mappings.

The flows of each kind are registered with its record type in ``sansio_auth._flows.kinds``.
"""

__all__ = [
    "EMAIL_API_FACTORIES",
    "PROVIDER_KINDS",
    "ClientOptions",
    "Credentials",
    "CredentialsProvider",
    "Email",
    "EmailProvider",
    "Endpoint",
    "ForwardEmail",
    "ForwardEmailProvider",
    "HTTPEmailProvider",
    "Hooks",
    "Loops",
    "LoopsProvider",
    "Mailgun",
    "MailgunProvider",
    "Nodemailer",
    "OAuthProvider",
    "OIDCProvider",
    "Passkey",
    "Password",
    "PasswordProvider",
    "Postmark",
    "PostmarkProvider",
    "Provider",
    "ProviderStyle",
    "ProviderType",
    "Resend",
    "ResendProvider",
    "SendGrid",
    "SendGridProvider",
    "WebAuthn",
    "WebAuthnProvider",
    "apple_client_secret",
]
__all__ += builtin.__all__
