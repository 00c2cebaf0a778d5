"""The refresh-token grant (RFC 6749 §6) as pure decisions: when to refresh, the request,
and what a session keeps of the answer.

A *token state* is the mapping a session keeps for one provider: ``access_token``,
``refresh_token``, ``expires_at`` (Unix seconds) and, for federated sign-out,
``id_token`` and ``sid`` (the JWT strategy keeps it in the session token, the
database strategy in the account row).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Literal

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ..events import HTTPResponse, OutboundRequest
from .id_token import IDTokenError, unverified_claims
from .tokens import TokenSet, authenticated_post

Decision = Literal["fresh", "refresh", "expired"]
"""``fresh``: use the state as it is; ``refresh``: ask the token endpoint first;
``expired``: its access token is expired and its refresh token was refused."""

REFUSED = frozenset({"invalid_grant"})
"""Token endpoint errors that mean the refresh token is dead (anything else may pass)."""

REFUSED_MARK = ""
"""The ``refresh_token`` a state keeps once the provider refused it: a string, so the
state still counts as refreshable (and can report the error), but never used."""


def _expires_at(state: Mapping[str, Any]) -> float | None:
    value = state.get("expires_at")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def refresh_decision(state: Mapping[str, Any], now: float, skew: float) -> Decision:
    """What to do with ``state`` at ``now``.

    A state without a ``refresh_token`` string (the provider never gave one) or without
    ``expires_at`` is always ``fresh``. Otherwise: ``fresh`` before ``expires_at - skew``;
    then ``refresh`` while the refresh token is live; once refused, ``fresh`` until
    ``expires_at`` and ``expired`` from then on.
    """
    expires_at = _expires_at(state)
    refresh_token = state.get("refresh_token")
    if expires_at is None or not isinstance(refresh_token, str) or now < expires_at - skew:
        return "fresh"
    if refresh_token != REFUSED_MARK:
        return "refresh"
    return "expired" if now >= expires_at else "fresh"


def usable_access_token(state: Mapping[str, Any], now: float) -> str | None:
    """The access token while it is valid (before ``expires_at``), else ``None``."""
    token = state.get("access_token")
    expires_at = _expires_at(state)
    if not isinstance(token, str) or (expires_at is not None and now >= expires_at):
        return None
    return token


def refreshed_state(state: Mapping[str, Any], tokens: TokenSet) -> dict[str, Any]:
    """``state`` after a successful refresh: the new access token and expiry, the new
    refresh token when one came (else the old one is kept: Google sends none), a new
    ID token when one came."""
    new = dict(state)
    new["access_token"] = tokens["access_token"]
    new["expires_at"] = tokens.get("expires_at")
    for name in ("refresh_token", "id_token", "scope", "token_type"):
        if isinstance(tokens.get(name), str) and tokens[name]:
            new[name] = tokens[name]
    return new


def refused_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """``state`` once the provider refused its refresh token: never asked again; the
    session reports :func:`state_error` once the access token expires."""
    return {**state, "refresh_token": REFUSED_MARK}


def state_error(state: Mapping[str, Any], now: float) -> str | None:
    """``"RefreshAccessTokenError"`` when the state's access token is expired for good."""
    return "RefreshAccessTokenError" if refresh_decision(state, now, 0) == "expired" else None


def refresh_request(
    endpoint: str,
    refresh_token: str,
    *,
    client_id: str,
    client_secret: str | None,
    auth_method: str,
) -> OutboundRequest:
    """``POST endpoint`` with ``grant_type=refresh_token``, the client authenticated."""
    body = {"grant_type": "refresh_token", "refresh_token": refresh_token}
    return authenticated_post(endpoint, body, client_id, client_secret, auth_method)


def single_flight_key(endpoint: str, refresh_token: str, kind: str = "refresh") -> str:
    """The key every concurrent refresh of this refresh token shares (a hash, not the token);
    ``kind="code"`` with a code and its verifier: every exchange of that code."""
    digest = hashlib.sha256(f"{endpoint}\0{refresh_token}".encode()).hexdigest()
    return f"{kind}:{digest}"


NONCE_BYTES = 12


def _answer_key(secret: str) -> AESGCM:
    material = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=b"sansio-auth refresh answer"
    ).derive(secret.encode())
    return AESGCM(material)


def seal_answer(secret: str, key: str, answer: HTTPResponse, nonce: bytes) -> bytes:
    """The token endpoint's ``answer``, encrypted for a shared single-flight store
    (AES-256-GCM, the key derived from ``secret``, what the request sent: the refresh token,
    or the code and its verifier; only those holding it can read the tokens; ``key`` is bound
    to it). ``nonce``: 12 random bytes."""
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"the nonce must be {NONCE_BYTES} bytes")
    plain = msgspec.json.encode(answer)
    return nonce + _answer_key(secret).encrypt(nonce, plain, key.encode())


def open_answer(secret: str, key: str, sealed: bytes) -> HTTPResponse | None:
    """The answer :func:`seal_answer` sealed, or ``None`` when it cannot be opened with this
    secret and key (tampered, or not one of ours)."""
    nonce, ciphertext = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
    try:
        plain = _answer_key(secret).decrypt(nonce, ciphertext, key.encode())
        return msgspec.json.decode(plain, type=HTTPResponse)
    except (InvalidTag, ValueError, msgspec.ValidationError):
        return None


def reference_claims(state: Mapping[str, Any]) -> dict[str, Any]:
    """What a refreshed ID token is checked against (OpenID Connect Core §12.2): the claims of
    the ID token the state keeps (verified when it was received), else its ``sub`` alone;
    empty for a state that has neither (made before these were kept)."""
    id_token = state.get("id_token")
    if isinstance(id_token, str):
        try:
            return unverified_claims(id_token)
        except IDTokenError:
            pass
    sub = state.get("sub")
    return {"sub": sub} if isinstance(sub, str) else {}


def check_refreshed_claims(claims: Mapping[str, Any], reference: Mapping[str, Any]) -> None:
    """Raise :class:`IDTokenError` unless a refreshed ID token's ``claims`` (signature,
    issuer, audience and times already checked) go on from the ``reference`` ones
    (OpenID Connect Core §12.2): the same ``sub``, ``iss``, ``aud`` and ``azp``; the same
    ``auth_time`` when both have one; a ``nonce`` only if it is the original one."""
    for name in ("sub", "iss", "azp"):
        if name in reference and claims.get(name) != reference[name]:
            raise IDTokenError(f"the refreshed ID token's `{name}` is not the original one")
    if "aud" in reference and _audiences(claims.get("aud")) != _audiences(reference["aud"]):
        raise IDTokenError("the refreshed ID token's `aud` is not the original one")
    original_time = reference.get("auth_time", claims.get("auth_time"))
    if claims.get("auth_time", original_time) != original_time:
        raise IDTokenError("the refreshed ID token's `auth_time` is not the original one")
    nonce = claims.get("nonce")
    if nonce is not None and "iss" in reference and nonce != reference.get("nonce"):
        raise IDTokenError("the refreshed ID token has a `nonce` that is not the original one")


def _audiences(value: Any) -> frozenset[Any]:
    return frozenset([value] if isinstance(value, str) else value or ())
