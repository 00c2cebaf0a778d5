"""The authorization response: what the provider sends back to ``callback/<id>``.

Checked in oauth4webapi's order: no parameter twice (RFC 6749 §3.1) and no JARM
``response`` (this client does not ask for one), the RFC 9207 ``iss`` parameter (required
when the issuer advertises it, compared exactly whenever present and the issuer is known),
then ``state``, then a provider ``error``; implicit and hybrid responses are refused and
a ``code`` is required. Pure: the flow maps each error to the page Auth.js shows.
"""

from __future__ import annotations

import hmac
from collections.abc import Collection, Mapping
from typing import Any

import msgspec

from ..errors import OAUTH_ERROR_HINTS, ProviderError


class AuthorizationResponseError(ProviderError):
    """The response breaks the protocol (issuer, implicit parameters, no code)."""


class StateMismatch(AuthorizationResponseError):
    """``state`` is missing or is not the value this browser's cookie holds."""


class ProviderDenied(ProviderError):
    """The provider answered with ``error`` (e.g. ``access_denied``)."""

    def __init__(self, error: str, description: str | None, uri: str | None) -> None:
        message = error if description is None else f"{error}: {description}"
        super().__init__(message, hint=OAUTH_ERROR_HINTS.get(error))
        self.error = error
        self.description = description
        self.uri = uri


class AuthorizationCode(msgspec.Struct, frozen=True, kw_only=True):
    """A successful authorization response."""

    code: str


def parse_authorization_response(
    params: Mapping[str, Any],
    *,
    expected_state: str | None,
    issuer: str | None,
    iss_required: bool,
    repeated: Collection[str] = (),
) -> AuthorizationCode:
    """Check ``params`` (query or ``form_post`` body) and return the code.

    ``expected_state`` is ``None`` when the state check is off; ``repeated`` names the
    parameters that came more than once. Raises :class:`StateMismatch`,
    :class:`ProviderDenied` or :class:`AuthorizationResponseError`.
    """
    if repeated:
        names = ", ".join(f"`{name[:40]}`" for name in sorted(repeated)[:5])
        raise AuthorizationResponseError(f"parameters came more than once: {names}")
    if "response" in params:
        raise AuthorizationResponseError("a JARM `response` was sent; none was asked for")
    iss = params.get("iss")
    if "iss" not in params:
        if iss_required:
            raise AuthorizationResponseError(
                "the issuer requires an `iss` parameter; none came", hint="issuer-mismatch"
            )
    elif not isinstance(iss, str) or (issuer is not None and iss != issuer):
        raise AuthorizationResponseError(
            "the `iss` parameter is not the provider's issuer", hint="issuer-mismatch"
        )
    if expected_state is not None:
        state = params.get("state")
        if not isinstance(state, str) or not hmac.compare_digest(
            state.encode(), expected_state.encode()
        ):
            raise StateMismatch("the `state` parameter is missing or does not match")
    if "error" in params:
        error = params["error"]
        if not isinstance(error, str):
            raise AuthorizationResponseError("the `error` parameter is not a string")
        return _raise_denied(error, params)
    if "id_token" in params or "token" in params or "access_token" in params:
        raise AuthorizationResponseError("implicit and hybrid responses are not accepted")
    code = params.get("code")
    if not isinstance(code, str) or not code:
        raise AuthorizationResponseError("the response has no `code`")
    return AuthorizationCode(code=code)


def _raise_denied(error: str, params: Mapping[str, Any]) -> AuthorizationCode:
    description = params.get("error_description")
    uri = params.get("error_uri")
    raise ProviderDenied(
        error[:200],
        description[:500] if isinstance(description, str) else None,
        uri[:500] if isinstance(uri, str) else None,
    )
