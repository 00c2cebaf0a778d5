"""Errors, named and typed as Auth.js's.

Every error carries its Auth.js ``type`` (the value that reaches logs and, when
the error is *client-safe*, the ``error`` query parameter of the error page),
its ``kind`` (``"signIn"`` errors are shown on the sign-in page, all others on
the error page), its :data:`Fault` (who is at fault: the browser, the provider,
the configuration, a callback, the adapter or the engine) and a ``cause``
mapping for server-side details.

:class:`FlowProtocolError` is not an :class:`AuthError`: it means the code
driving a flow broke the action/event contract (as h11's ``LocalProtocolError``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

ErrorKind = Literal["signIn", "error"]
Fault = Literal["browser", "provider", "configuration", "callback", "adapter", "engine"]


class FlowProtocolError(RuntimeError):
    """A flow was driven against its contract: answered with the wrong event type,
    answered before :meth:`~sansio_auth.Flow.next_action`, or after it responded."""


class ProviderError(ValueError):
    """Marks an exception as the provider's fault: an answer the engine refuses
    (a malformed token response, an invalid ID token, an error redirect, ...)."""


class ProviderUnreachable(Exception):
    """Marks a transport failure reaching the provider (bindings' HTTP errors derive
    from it), so :func:`fault_of` tells it from an engine bug."""


def fault_of(error: BaseException | None) -> Fault:
    """Who is at fault for ``error``."""
    if isinstance(error, AuthError):
        return error.fault
    if isinstance(error, ProviderError | ProviderUnreachable):
        return "provider"
    return "engine"


class AuthError(Exception):
    """Base class of every error the library raises.

    ``type`` names the error in logs; ``cause`` holds details for the server log
    only (``cause["err"]`` is the underlying exception, if any).
    """

    type: ClassVar[str] = "AuthError"
    kind: ClassVar[ErrorKind] = "error"
    client_safe: ClassVar[bool] = False
    default_fault: ClassVar[Fault | None] = None
    """Who is at fault for every error of this class; ``None``: the wrapped error's fault."""

    def __init__(
        self,
        message: str | BaseException | None = None,
        *,
        cause: Mapping[str, Any] | None = None,
        fault: Fault | None = None,
    ) -> None:
        details = dict(cause or {})
        if isinstance(message, BaseException):
            details.setdefault("err", message)
            message = str(message) or None
        self.cause: dict[str, Any] = details
        self.message = message or ""
        super().__init__(self.message)
        if isinstance(details.get("err"), BaseException):
            self.__cause__ = details["err"]
        self._fault = fault

    @property
    def fault(self) -> Fault:
        """Who is at fault: given, else the class's, else that of the error it wraps."""
        if self._fault is not None:
            return self._fault
        if self.default_fault is not None:
            return self.default_fault
        return fault_of(self.cause.get("err"))

    def __str__(self) -> str:
        link = f"Read more at https://errors.authjs.dev#{self.type.lower()}"
        return f"{self.message}. {link}" if self.message else link


class SignInError(AuthError):
    """An error shown on the sign-in page rather than the error page."""

    kind: ClassVar[ErrorKind] = "signIn"


class CredentialsSignin(SignInError):
    """Raised by (or on behalf of) a credentials provider's ``authorize``.

    ``code`` travels in the redirect URL (``error=CredentialsSignin&code=<code>``):
    keep it vague; the full error is logged on the server only.
    """

    type: ClassVar[str] = "CredentialsSignin"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True
    code: str = "credentials"

    def __init__(
        self,
        message: str | BaseException | None = None,
        *,
        code: str | None = None,
        cause: Mapping[str, Any] | None = None,
        fault: Fault | None = None,
    ) -> None:
        super().__init__(message, cause=cause, fault=fault)
        if code is not None:
            self.code = code


class AccessDenied(AuthError):
    """The ``sign_in`` callback refused the sign-in (returned false or raised)."""

    type: ClassVar[str] = "AccessDenied"
    default_fault: ClassVar[Fault | None] = "callback"
    client_safe: ClassVar[bool] = True


class AdapterError(AuthError):
    """A database adapter method raised."""

    type: ClassVar[str] = "AdapterError"
    default_fault: ClassVar[Fault | None] = "adapter"


class CallbackRouteError(AuthError):
    """An unexpected error in the callback route."""

    type: ClassVar[str] = "CallbackRouteError"


class ErrorPageLoop(AuthError):
    """A configuration error while the callback URL targets the error page.

    Never raised here (configurations are checked at start-up, not per request);
    kept so code written against Auth.js's error names still imports.
    """

    type: ClassVar[str] = "ErrorPageLoop"
    default_fault: ClassVar[Fault | None] = "configuration"


class EventError(AuthError):
    """An ``events`` handler raised (logged, never fatal)."""

    type: ClassVar[str] = "EventError"
    default_fault: ClassVar[Fault | None] = "callback"


class InvalidCallbackUrl(AuthError):
    """A callback URL that is not http(s).

    Never raised here: such a URL is ignored with the ``invalid-callback-url``
    warning instead of failing the request (a deliberate difference from Auth.js,
    docs/compatibility.md); kept for Auth.js's error names.
    """

    type: ClassVar[str] = "InvalidCallbackUrl"
    default_fault: ClassVar[Fault | None] = "browser"


class InvalidEndpoints(AuthError):
    """An OAuth provider without issuer and without endpoints."""

    type: ClassVar[str] = "InvalidEndpoints"
    default_fault: ClassVar[Fault | None] = "configuration"


class InvalidCheck(AuthError):
    """A state, PKCE or nonce check failed."""

    type: ClassVar[str] = "InvalidCheck"
    default_fault: ClassVar[Fault | None] = "browser"


class JWTSessionError(AuthError):
    """The session token could not be read or written."""

    type: ClassVar[str] = "JWTSessionError"
    default_fault: ClassVar[Fault | None] = "browser"


class MissingAdapter(AuthError):
    """A feature that needs a database adapter has none."""

    type: ClassVar[str] = "MissingAdapter"
    default_fault: ClassVar[Fault | None] = "configuration"


class MissingAdapterMethods(AuthError):
    """The adapter lacks methods the configured features need."""

    type: ClassVar[str] = "MissingAdapterMethods"
    default_fault: ClassVar[Fault | None] = "configuration"


class MissingAuthorize(AuthError):
    """A credentials provider without ``authorize``."""

    type: ClassVar[str] = "MissingAuthorize"
    default_fault: ClassVar[Fault | None] = "configuration"


class MissingSecretError(AuthError):
    """No secret was configured."""

    type: ClassVar[str] = "MissingSecret"
    default_fault: ClassVar[Fault | None] = "configuration"


class OAuthProfileParseError(AuthError):
    """A provider's ``profile`` raised."""

    type: ClassVar[str] = "OAuthProfileParseError"
    default_fault: ClassVar[Fault | None] = "provider"


class SessionTokenError(AuthError):
    """The database session lookup failed."""

    type: ClassVar[str] = "SessionTokenError"


class SignOutError(AuthError):
    """Signing out failed part way (logged)."""

    type: ClassVar[str] = "SignOutError"


class UnknownAction(AuthError):
    """The route, method or action is not known."""

    type: ClassVar[str] = "UnknownAction"
    default_fault: ClassVar[Fault | None] = "browser"


class UnsupportedStrategy(AuthError):
    """The session strategy cannot serve the configured providers."""

    type: ClassVar[str] = "UnsupportedStrategy"
    default_fault: ClassVar[Fault | None] = "configuration"


class InvalidProvider(AuthError):
    """The provider cannot serve this route."""

    type: ClassVar[str] = "InvalidProvider"
    default_fault: ClassVar[Fault | None] = "browser"


class UntrustedHost(AuthError):
    """The request host is not trusted (set ``trust_host`` or ``AUTH_URL``)."""

    type: ClassVar[str] = "UntrustedHost"
    default_fault: ClassVar[Fault | None] = "configuration"


class Verification(AuthError):
    """An e-mail sign-in link is invalid, expired or already used."""

    type: ClassVar[str] = "Verification"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class Configuration(AuthError):
    """The configuration is invalid."""

    type: ClassVar[str] = "Configuration"
    default_fault: ClassVar[Fault | None] = "configuration"


class OAuthAccountNotLinked(SignInError):
    """The account's e-mail belongs to a user it is not linked to."""

    type: ClassVar[str] = "OAuthAccountNotLinked"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class OAuthCallbackError(SignInError):
    """The provider answered the authorization request with an error."""

    type: ClassVar[str] = "OAuthCallbackError"
    default_fault: ClassVar[Fault | None] = "provider"
    client_safe: ClassVar[bool] = True


class OAuthSignInError(SignInError):
    """Starting an OAuth sign-in failed.

    Defined but never thrown by Auth.js either; kept for its error names.
    """

    type: ClassVar[str] = "OAuthSignInError"


class EmailSignInError(SignInError):
    """Sending the e-mail sign-in link failed."""

    type: ClassVar[str] = "EmailSignInError"


class MissingCSRF(SignInError):
    """A state-changing POST without a matching CSRF token."""

    type: ClassVar[str] = "MissingCSRF"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class AccountNotLinked(SignInError):
    """WebAuthn linking refused: the credential is another user's, or a user has the address."""

    type: ClassVar[str] = "AccountNotLinked"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class WebAuthnVerificationError(AuthError):
    """A WebAuthn response could not be verified."""

    type: ClassVar[str] = "WebAuthnVerificationError"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class DuplicateConditionalUI(AuthError):
    """More than one WebAuthn provider has ``enable_conditional_ui``."""

    type: ClassVar[str] = "DuplicateConditionalUI"
    default_fault: ClassVar[Fault | None] = "configuration"


class MissingWebAuthnAutocomplete(AuthError):
    """A WebAuthn provider with conditional UI has no form field whose ``autocomplete``
    contains ``webauthn``."""

    type: ClassVar[str] = "MissingWebAuthnAutocomplete"
    default_fault: ClassVar[Fault | None] = "configuration"


class ExperimentalFeatureNotEnabled(AuthError):
    """An experimental feature is used but not enabled."""

    type: ClassVar[str] = "ExperimentalFeatureNotEnabled"
    default_fault: ClassVar[Fault | None] = "configuration"


MissingSecret = MissingSecretError


def client_error_type(error: BaseException) -> str:
    """The ``error`` value a browser may see for ``error``: its type or ``Configuration``."""
    if isinstance(error, AuthError) and error.client_safe:
        return error.type
    return "Configuration"


class RefreshAccessTokenError(AuthError):
    """A provider refused to refresh an access token (``invalid_grant``): the session
    carries ``error: "RefreshAccessTokenError"`` until the user signs in again."""

    type: ClassVar[str] = "RefreshAccessTokenError"
    default_fault: ClassVar[Fault | None] = "provider"
