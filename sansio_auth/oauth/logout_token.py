"""Logout token validation (OpenID Connect Back-Channel Logout 1.0, §2.6).

The token is a JWT signed like an ID token (key from the issuer's JWKS, asymmetric
algorithms only); its ``iss`` is the issuer, its ``aud`` holds the client, its ``iat``
is recent (``max_age`` seconds, 30 s tolerance for the future), its ``exp`` (when
present) has not passed, it has a ``jti``, the back-channel ``events`` member, a
``sub`` and/or a ``sid``, and **no** ``nonce`` (so an ID token cannot pass as one).
Whether the ``jti`` was seen before is the caller's check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from .._flow import Step
from ..errors import ProviderError
from .cache import ProviderCache
from .id_token import CLOCK_TOLERANCE, IDTokenError, signed_claims

EVENT = "http://schemas.openid.net/event/backchannel-logout"
MAX_AGE = 120
"""Seconds a logout token is accepted after its ``iat``."""


class LogoutTokenError(ProviderError):
    """The logout token is not acceptable (answered ``400``)."""


class LogoutToken(msgspec.Struct, frozen=True, kw_only=True):
    """The facts of a valid logout token."""

    issuer: str
    jti: str
    sub: str | None
    sid: str | None
    iat: float


def check_logout_claims(
    claims: Mapping[str, Any], *, issuer: str, client_id: str, now: float, max_age: int = MAX_AGE
) -> LogoutToken:
    """The :class:`LogoutToken` of verified ``claims``; :class:`LogoutTokenError` if invalid."""
    if claims.get("iss") != issuer:
        raise LogoutTokenError("the logout token's `iss` is not the issuer")
    aud = claims.get("aud")
    audiences = [aud] if isinstance(aud, str) else aud
    if not isinstance(audiences, list) or client_id not in audiences:
        raise LogoutTokenError("the logout token is not for this client (`aud`)")
    iat = claims.get("iat")
    if isinstance(iat, bool) or not isinstance(iat, int | float):
        raise LogoutTokenError("the logout token has no `iat`")
    if iat > now + CLOCK_TOLERANCE or iat < now - max_age:
        raise LogoutTokenError("the logout token's `iat` is outside the accepted window")
    exp = claims.get("exp")
    if exp is not None and (
        isinstance(exp, bool) or not isinstance(exp, int | float) or exp <= now - CLOCK_TOLERANCE
    ):
        raise LogoutTokenError("the logout token has expired (`exp`)")
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti:
        raise LogoutTokenError("the logout token has no `jti`")
    events = claims.get("events")
    if not isinstance(events, Mapping) or not isinstance(events.get(EVENT), Mapping):
        raise LogoutTokenError("the logout token has no back-channel logout `events` member")
    if "nonce" in claims:
        raise LogoutTokenError("the logout token has a `nonce` (an ID token?)")
    sub, sid = claims.get("sub"), claims.get("sid")
    if sub is not None and (not isinstance(sub, str) or not sub):
        raise LogoutTokenError("the logout token's `sub` is not a string")
    if sid is not None and (not isinstance(sid, str) or not sid):
        raise LogoutTokenError("the logout token's `sid` is not a string")
    if sub is None and sid is None:
        raise LogoutTokenError("the logout token names neither `sub` nor `sid`")
    return LogoutToken(issuer=issuer, jti=jti, sub=sub, sid=sid, iat=float(iat))


def validate_logout_token(
    token: str,
    *,
    jwks_uri: str | None,
    algorithms: Sequence[str],
    cache: ProviderCache,
    issuer: str,
    client_id: str,
    now: float,
) -> Step[LogoutToken]:
    """The facts of a valid ``token`` (signature first; an unknown key refetches the JWKS
    once, rate-limited); :class:`LogoutTokenError` otherwise."""
    if jwks_uri is None or not algorithms:
        raise LogoutTokenError("the issuer's logout tokens cannot be verified (no JWKS)")
    try:
        claims = yield from signed_claims(token, jwks_uri, algorithms, cache, now, "logout token")
    except IDTokenError as err:
        raise LogoutTokenError(str(err)) from err
    return check_logout_claims(claims, issuer=issuer, client_id=client_id, now=now)
