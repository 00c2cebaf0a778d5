"""Errors: Auth.js's types and kinds, the client-safe set, messages and causes."""

import pytest

from sansio_auth import errors
from sansio_auth.errors import (
    AccessDenied,
    AuthError,
    CredentialsSignin,
    MissingCSRF,
    MissingSecretError,
    client_error_type,
)

CLIENT_SAFE = {
    "CredentialsSignin",
    "OAuthAccountNotLinked",
    "OAuthCallbackError",
    "AccessDenied",
    "Verification",
    "MissingCSRF",
    "AccountNotLinked",
    "WebAuthnVerificationError",
    "TwoFactorExpired",  # ours (not in Auth.js)
    # ours (a user's own sessions and accounts), not Auth.js's
    "SessionRequired",
    "SessionNotFresh",
    "LastSignInMethod",
    "RecordNotFound",
    "RevocationRequired",
}
SIGN_IN_KIND = {
    "CredentialsSignin",
    "OAuthAccountNotLinked",
    "OAuthCallbackError",
    "OAuthSignInError",
    "EmailSignInError",
    "MissingCSRF",
    "AccountNotLinked",
    "TwoFactorExpired",  # ours (not in Auth.js)
    "SessionRequired",
    "SessionNotFresh",
}
ALL_ERRORS = [
    value
    for value in vars(errors).values()
    if isinstance(value, type) and issubclass(value, AuthError) and value is not AuthError
]


def test_every_auth_js_error_type_exists_and_links_to_auth_js():
    types = {error.type for error in ALL_ERRORS}
    auth_js = {
        "AccessDenied",
        "AdapterError",
        "CallbackRouteError",
        "ErrorPageLoop",
        "EventError",
        "InvalidCallbackUrl",
        "CredentialsSignin",
        "InvalidEndpoints",
        "InvalidCheck",
        "JWTSessionError",
        "MissingAdapter",
        "MissingAdapterMethods",
        "MissingAuthorize",
        "MissingSecret",
        "OAuthAccountNotLinked",
        "OAuthCallbackError",
        "OAuthProfileParseError",
        "SessionTokenError",
        "OAuthSignInError",
        "EmailSignInError",
        "SignOutError",
        "UnknownAction",
        "UnsupportedStrategy",
        "InvalidProvider",
        "UntrustedHost",
        "Verification",
        "MissingCSRF",
        "AccountNotLinked",
        "WebAuthnVerificationError",
        "ExperimentalFeatureNotEnabled",
        "DuplicateConditionalUI",
        "MissingWebAuthnAutocomplete",
    }
    assert auth_js <= types
    assert {*auth_js, "AuthError"} == errors.AUTHJS_ERROR_TYPES


@pytest.mark.parametrize("error", ALL_ERRORS, ids=lambda e: e.__name__)
def test_client_safety_and_kind_match_auth_js(error):
    assert error.client_safe is (error.type in CLIENT_SAFE)
    if error.type in SIGN_IN_KIND or error is errors.SignInError:
        assert error.kind == "signIn"
    else:
        assert error.kind == "error"


def test_client_error_type():
    assert client_error_type(AccessDenied()) == "AccessDenied"
    assert client_error_type(MissingSecretError()) == "Configuration"
    assert client_error_type(RuntimeError("x")) == "Configuration"


def test_message_has_the_read_more_link():
    assert str(MissingCSRF("token missing")) == (
        "token missing. Read more at https://errors.authjs.dev#missingcsrf"
    )
    assert str(AccessDenied()) == "Read more at https://errors.authjs.dev#accessdenied"
    assert str(AuthError("x")) == "x. Read more at https://errors.authjs.dev#autherror"


def test_an_error_only_we_have_links_to_our_reference():
    """Auth.js's reference has no entry for it: the link is the docs site's error page."""
    assert str(errors.DeadlineExceeded("the adapter took too long")) == (
        "the adapter took too long. Read more at "
        f"{errors.DOCS_URL}reference/errors/#deadlineexceeded"
    )
    assert errors.DOCS_URL.startswith("https://")
    assert errors.DOCS_URL.endswith("/")


def test_an_exception_becomes_the_cause():
    underlying = ValueError("bad value")
    error = AccessDenied(underlying, cause={"provider": "x"})
    assert error.message == "bad value"
    assert error.cause == {"provider": "x", "err": underlying}
    assert error.__cause__ is underlying


def test_credentials_signin_code():
    assert CredentialsSignin().code == "credentials"
    assert CredentialsSignin("m", code="locked").code == "locked"
    assert CredentialsSignin.kind == "signIn"


def test_missing_secret_names():
    assert errors.MissingSecret is MissingSecretError
    assert MissingSecretError.type == "MissingSecret"


def test_every_error_says_who_is_at_fault():
    from sansio_auth.errors import (
        AccessDenied,
        AdapterError,
        CallbackRouteError,
        Configuration,
        MissingCSRF,
        OAuthCallbackError,
        ProviderError,
        ProviderUnreachable,
        fault_of,
    )
    from sansio_auth.oauth.id_token import IDTokenError
    from sansio_auth.oauth.tokens import TokenResponseError

    assert MissingCSRF().fault == "browser"
    assert OAuthCallbackError().fault == "provider"
    assert Configuration().fault == "configuration"
    assert AccessDenied().fault == "callback"
    assert AdapterError(ConnectionError()).fault == "adapter"
    # a wrapper takes the fault of what it wraps: a provider's bad answer is not a bug
    assert CallbackRouteError(TokenResponseError("no access_token")).fault == "provider"
    assert CallbackRouteError(IDTokenError("bad signature")).fault == "provider"
    assert CallbackRouteError(ProviderUnreachable("timed out")).fault == "provider"
    assert CallbackRouteError(KeyError("sub")).fault == "engine"
    assert CallbackRouteError(KeyError("sub"), fault="callback").fault == "callback"
    assert fault_of(ProviderError()) == "provider"
    assert fault_of(RuntimeError()) == "engine"
