"""Errors, named and typed as Auth.js's.

Every error carries its Auth.js ``type`` (the value that reaches logs and, when
the error is *client-safe*, the ``error`` query parameter of the error page),
its ``kind`` (``"signIn"`` errors are shown on the sign-in page, all others on
the error page), its :data:`Fault` (who is at fault: the browser, the provider,
the configuration, a callback, the adapter or the engine) and a ``cause``
mapping for server-side details.

**Errors that name their fix.** :data:`HINTS` is the one table of likely fixes, keyed by
a short name. An error names its row with ``hint`` (an :class:`AuthError` class by
``default_hint``, a raise site by ``hint=``; a :class:`ProviderError` by ``hint=``);
:func:`hint_of` finds it on an error or on the error it wraps. The engine puts the fix
in the error's log line and, with ``debug=True``, the row's name in the error page's URL
(``&hint=issuer-mismatch``), where the page shows the cause and the fix. The texts are
fixed: no value of a request, a token or a secret ever reaches them.

:class:`FlowProtocolError` is not an :class:`AuthError`: it means the code
driving a flow broke the action/event contract (as h11's ``LocalProtocolError``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal, NamedTuple

ErrorKind = Literal["signIn", "error"]
"""Which page shows an error: the sign-in page (``signIn``) or the error page (``error``)."""
Fault = Literal["browser", "provider", "configuration", "callback", "adapter", "engine"]
"""Whose fault an error is: who should fix it."""


class Hint(NamedTuple):
    """A row of :data:`HINTS`: what most likely happened, and what to change."""

    cause: str
    fix: str


HINTS: Mapping[str, Hint] = {
    "issuer-mismatch": Hint(
        "The provider that answered is not the one configured: the `iss` it sent (RFC 9207, "
        "or the ID token's) is not the provider's `issuer`.",
        "When you point a provider's `authorization`, `token` or `userinfo` at another "
        "server, set `issuer=` to that server's issuer too (or `AUTH_<ID>_ISSUER`).",
    ),
    "discovery-failed": Hint(
        "The provider's discovery document could not be read, or names another issuer.",
        "Check `issuer` (or `well_known`): `<issuer>/.well-known/openid-configuration` must "
        "answer 200 with JSON whose `issuer` is exactly the configured one (mind a trailing "
        "slash).",
    ),
    "provider-unreachable": Hint(
        "The provider could not be reached (connection refused, DNS, TLS or a timeout).",
        "Check the provider's URLs and that this server can reach them (firewall, proxy "
        "variables, certificates); timeouts are set on the binding's `HTTPClient`.",
    ),
    "client-credentials": Hint(
        "The provider refused this application's client credentials.",
        "Check `client_id` and `client_secret` (`AUTH_<ID>_ID` / `AUTH_<ID>_SECRET`) and "
        "`client.token_endpoint_auth_method` against the provider's settings.",
    ),
    "code-refused": Hint(
        "The provider refused the authorization code.",
        "The `redirect_uri` registered with the provider must be exactly "
        "`<origin><base_path>/callback/<id>`; behind a proxy, set `AUTH_URL` to the public "
        "URL. A code works once: reloading the callback page fails.",
    ),
    "redirect-uri": Hint(
        "The provider refused the `redirect_uri` it was sent.",
        "Register `<origin><base_path>/callback/<id>` with the provider (the origin the "
        "browser uses: set `AUTH_URL` behind a proxy).",
    ),
    "check-cookies": Hint(
        "The browser came back without the state, PKCE or nonce cookie set at sign-in, or "
        "with another sign-in's.",
        "Start and finish the sign-in on the same origin (`localhost` and `127.0.0.1` are two "
        "sites; set `AUTH_URL`); cookies must be allowed; with `form_post` the site must be "
        "https. Two sign-ins in parallel tabs also end here.",
    ),
    "missing-csrf": Hint(
        "A POST came without the CSRF token of its cookie.",
        "Post the `csrfToken` of `GET <base_path>/csrf` (the built-in pages' forms do) from "
        "the same origin, with the cookie that came with it.",
    ),
    "session-cookie": Hint(
        "The session cookie could not be read: it was made with another secret.",
        "Give every server the same `AUTH_SECRET`; to change it without signing everyone "
        "out, pass `secret=[new, old]`.",
    ),
    "authorize-raised": Hint(
        "The credentials provider's `authorize` raised.",
        "Return `None` to refuse a sign-in (or raise `CredentialsSignin`); any other "
        "exception is a server error.",
    ),
    "sign-in-refused": Hint(
        "The `sign_in` callback refused the sign-in (returned false or raised).",
        "Check the `sign_in` callback's conditions; return `True` to let the user in.",
    ),
    "account-not-linked": Hint(
        "The e-mail address belongs to a user who signed up with another provider.",
        "Sign in with that provider; or set `allow_dangerous_email_account_linking=True` "
        "on providers that verify addresses.",
    ),
    "not-an-auth-route": Hint(
        "A request under `base_path` that no route serves (the base path itself is no page).",
        "Link to a page, such as the sign-in page `<base_path>/signin`; see docs/routes.md.",
    ),
}
"""The likely fix of each common mistake, keyed by the name errors give in ``hint``."""

OAUTH_ERROR_HINTS: Mapping[str, str] = {
    "invalid_client": "client-credentials",
    "unauthorized_client": "client-credentials",
    "invalid_grant": "code-refused",
    "redirect_uri_mismatch": "redirect-uri",
}
"""The :data:`HINTS` row of an OAuth ``error`` code a provider answers with."""


def hint_of(error: BaseException | None) -> str | None:
    """The :data:`HINTS` row named by ``error``, else by the error it wraps, if any."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        hint = getattr(error, "hint", None)
        if isinstance(hint, str) and hint in HINTS:
            return hint
        wrapped = error.cause.get("err") if isinstance(error, AuthError) else None
        error = error.__cause__ or (wrapped if isinstance(wrapped, BaseException) else None)
    return None


def likely_fix(error: BaseException | None) -> str | None:
    """The fix :data:`HINTS` gives for ``error`` (see :func:`hint_of`), if any."""
    hint = hint_of(error)
    return None if hint is None else HINTS[hint].fix


class FlowProtocolError(RuntimeError):
    """A flow was driven against its contract: answered with the wrong event type,
    answered before :meth:`~sansio_auth.Flow.next_action`, or after it responded."""


class ProviderError(ValueError):
    """Marks an exception as the provider's fault: an answer the engine refuses
    (a malformed token response, an invalid ID token, an error redirect, ...).
    ``hint`` names its row of :data:`HINTS`, if one fits."""

    def __init__(self, *args: object, hint: str | None = None) -> None:
        super().__init__(*args)
        self.hint = hint


class TokenResponseError(ProviderError):
    """The token endpoint refused the code (``error``) or answered outside the protocol."""

    def __init__(self, message: str, error: str | None = None) -> None:
        super().__init__(message, hint=OAUTH_ERROR_HINTS.get(error or ""))
        self.error = error


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


DOCS_URL = "https://sansio-auth.readthedocs.io/"
"""The documentation site (the site's ``site_url`` is set from it, see tools/site_hooks.py)."""

AUTHJS_ERROR_TYPES = frozenset({
    "AuthError", "AccessDenied", "AdapterError", "CallbackRouteError", "ErrorPageLoop",
    "EventError", "InvalidCallbackUrl", "CredentialsSignin", "InvalidEndpoints", "InvalidCheck",
    "JWTSessionError", "MissingAdapter", "MissingAdapterMethods", "MissingAuthorize",
    "MissingSecret", "OAuthAccountNotLinked", "OAuthCallbackError", "OAuthProfileParseError",
    "SessionTokenError", "OAuthSignInError", "EmailSignInError", "SignOutError", "UnknownAction",
    "UnsupportedStrategy", "InvalidProvider", "UntrustedHost", "Verification", "MissingCSRF",
    "AccountNotLinked", "DuplicateConditionalUI", "MissingWebAuthnAutocomplete",
    "WebAuthnVerificationError", "ExperimentalFeatureNotEnabled",
})  # fmt: skip
"""The error types Auth.js has: their log lines link to Auth.js's error reference; every
other type's to this library's own (:func:`reference_url`)."""


def reference_url(error_type: str) -> str:
    """The page that explains errors of type ``error_type`` (what it means, what to do):
    Auth.js's reference for its own types, this library's for the others."""
    if error_type in AUTHJS_ERROR_TYPES:
        return f"https://errors.authjs.dev#{error_type.lower()}"
    return f"{DOCS_URL}reference/errors/#{error_type.lower()}"


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
    default_hint: ClassVar[str | None] = None
    """The :data:`HINTS` row of every error of this class, unless ``hint=`` names another."""

    def __init__(
        self,
        message: str | BaseException | None = None,
        *,
        cause: Mapping[str, Any] | None = None,
        fault: Fault | None = None,
        hint: str | None = None,
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
        self.hint = hint or self.default_hint
        """Its row of :data:`HINTS` (see :func:`hint_of`), if one fits."""

    @property
    def fault(self) -> Fault:
        """Who is at fault: given, else the class's, else that of the error it wraps."""
        if self._fault is not None:
            return self._fault
        if self.default_fault is not None:
            return self.default_fault
        return fault_of(self.cause.get("err"))

    def __str__(self) -> str:
        link = f"Read more at {reference_url(self.type)}"
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
        hint: str | None = None,
    ) -> None:
        super().__init__(message, cause=cause, fault=fault, hint=hint)
        if code is not None:
            self.code = code


class AccessDenied(AuthError):
    """The ``sign_in`` callback refused the sign-in (returned false or raised)."""

    type: ClassVar[str] = "AccessDenied"
    default_hint: ClassVar[str | None] = "sign-in-refused"
    default_fault: ClassVar[Fault | None] = "callback"
    client_safe: ClassVar[bool] = True


class AdapterError(AuthError):
    """A database adapter method raised."""

    type: ClassVar[str] = "AdapterError"
    default_fault: ClassVar[Fault | None] = "adapter"


class ActionTimeout(TimeoutError):
    """What a binding answers an action with when it stopped waiting for it at a deadline
    (``Failed(ActionTimeout(...))``, see ``deadlines``): the engine raises
    :class:`DeadlineExceeded` for it. A plain :class:`TimeoutError` is taken the same way from
    a callback or an adapter call; from a provider request it is the transport's own timeout,
    a failure of the provider."""


class DeadlineExceeded(AuthError):
    """A callback, an adapter call, a provider request or a whole sign-in took longer than
    its deadline (``deadlines``): the binding stopped waiting (not in Auth.js). Its fault
    is that of what was slow; the browser sees ``error=Configuration``."""

    type: ClassVar[str] = "DeadlineExceeded"


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
    default_hint: ClassVar[str | None] = "check-cookies"
    default_fault: ClassVar[Fault | None] = "browser"


class JWTSessionError(AuthError):
    """The session token could not be read or written."""

    type: ClassVar[str] = "JWTSessionError"
    default_hint: ClassVar[str | None] = "session-cookie"
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
    default_hint: ClassVar[str | None] = "account-not-linked"
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
    default_hint: ClassVar[str | None] = "missing-csrf"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class AccountNotLinked(SignInError):
    """WebAuthn linking refused: the credential is another user's, or a user has the address."""

    type: ClassVar[str] = "AccountNotLinked"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class TwoFactorExpired(SignInError):
    """The sign-in waiting for its second factor is gone: expired, altered, or never begun
    (not in Auth.js)."""

    type: ClassVar[str] = "TwoFactorExpired"
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
"""Auth.js's name of :class:`MissingSecretError`."""


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


class SessionRequired(SignInError):
    """An action for signed-in users only (the security page and its actions) without a live
    session. Not in Auth.js (its pages use the ``SessionRequired`` error value alike)."""

    type: ClassVar[str] = "SessionRequired"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class SessionNotFresh(SignInError):
    """A sensitive action (unlinking an account, deleting the user, ...) from a session signed
    in longer ago than ``session.fresh_age``: the user signs in again first. Not in Auth.js."""

    type: ClassVar[str] = "SessionNotFresh"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class RevocationRequired(AuthError):
    """Listing or ending a user's JWT sessions without ``session={"revocation": True}``: no
    record lists them, and a JWT session cannot be ended before it expires. Not in Auth.js."""

    type: ClassVar[str] = "RevocationRequired"
    default_fault: ClassVar[Fault | None] = "configuration"
    client_safe: ClassVar[bool] = True


class LastSignInMethod(AuthError):
    """Unlinking the account would leave the user no way to sign in. Not in Auth.js."""

    type: ClassVar[str] = "LastSignInMethod"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True


class RecordNotFound(AuthError):
    """The session or account an action names is not one of the signed-in user's (or no
    longer exists). Not in Auth.js."""

    type: ClassVar[str] = "RecordNotFound"
    default_fault: ClassVar[Fault | None] = "browser"
    client_safe: ClassVar[bool] = True
