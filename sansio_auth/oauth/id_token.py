"""ID token validation, signature included (Auth.js checks only the claims).

The key comes from the issuer's JWKS: the one with the token's ``kid``, or, when the
token names none, the only key that fits its algorithm; RSA keys need 2048 bits.
Asymmetric algorithms are accepted (the default is ``RS256``); ``alg: none`` never. HMAC
(``HS256``/``384``/``512``, keyed by the client secret, OpenID Connect Core §10.1) only from
a provider that declares it as its ``client.id_token_signed_response_alg`` (LINE does),
never because the issuer's metadata lists it, and never with a JWKS key (a public key is
not an HMAC secret). Claims:
``iss`` exactly the issuer, ``aud`` contains the client, ``azp`` is the client when
present (required with several audiences), ``exp``/``iat``/``nbf`` within a 30 s
tolerance, ``sub`` a non-empty string, ``nonce`` as expected (absent when the
nonce check is off), and ``auth_time`` a number when present, required and recent enough
when ``max_age`` was sent (OpenID Connect Core §3.1.3.7).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from joserfc import jws
from joserfc.errors import JoseError, SecurityWarning
from joserfc.jwk import JWKRegistry, Key, OctKey

from .._flow import Step
from ..errors import ProviderError
from ..providers.oauth import HMAC_ID_TOKEN_ALGORITHMS, ID_TOKEN_ALGORITHMS
from .cache import ProviderCache
from .discovery import get_jwks

CLOCK_TOLERANCE = 30
MIN_RSA_BITS = 2048
"""RSA keys shorter than this are refused (RFC 7518 §3.3 requires 2048 bits for RS*/PS*)."""
DEFAULT_ALGORITHMS = ("RS256",)
_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "Ed": "OKP"}
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
_CURVES = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521", "EdDSA": "Ed25519"}


class IDTokenError(ProviderError):
    """The ID token is not acceptable."""


class UnknownKey(IDTokenError):
    """No key of the JWKS fits the token (a rotated key: refetch the JWKS once)."""


def allowed_algorithms(configured: str | None, advertised: Sequence[str] | None) -> tuple[str, ...]:
    """The client's declared algorithm (HMAC included), else the issuer's supported list
    (asymmetric only), else ``RS256``."""
    if configured is not None:
        return (configured,) if configured in ID_TOKEN_ALGORITHMS | HMAC_ID_TOKEN_ALGORITHMS else ()
    if advertised:
        candidates: Sequence[str] = advertised
    else:
        candidates = DEFAULT_ALGORITHMS
    return tuple(alg for alg in candidates if alg in ID_TOKEN_ALGORITHMS)


def _b64decode(segment: str, what: str) -> bytes:
    if not _BASE64URL.fullmatch(segment):
        raise IDTokenError(f"the {what} is not base64url without padding")
    try:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError) as err:
        raise IDTokenError(f"the {what} is not base64url") from err


def _json_object(segment: str, what: str, part: str) -> dict[str, Any]:
    try:
        value = msgspec.json.decode(_b64decode(segment, what))
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise IDTokenError(f"the {what} {part} is not JSON") from err
    if not isinstance(value, dict):
        raise IDTokenError(f"the {what} {part} is not a JSON object")
    return value


def read_header(token: str, what: str = "ID token") -> dict[str, Any]:
    """The protected header of a compact JWS (not verified)."""
    parts = token.split(".")
    if len(parts) != 3:
        raise IDTokenError(f"the {what} is not a compact JWS (a JWE or malformed)")
    return _json_object(parts[0], what, "header")


def unverified_claims(id_token: str) -> dict[str, Any]:
    """The payload of a compact JWS, not verified: only for an ID token verified when it
    was received (and kept since)."""
    parts = id_token.split(".")
    if len(parts) != 3:
        raise IDTokenError("the ID token is not a compact JWS (a JWE or malformed)")
    return _json_object(parts[1], "ID token", "payload")


def select_key(
    header: Mapping[str, Any], keys: Sequence[Mapping[str, Any]], what: str = "ID token"
) -> Key:
    """The JWKS key to verify a token with ``header``; :class:`UnknownKey` when none fits."""
    alg = header["alg"]
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise IDTokenError(f"the {what}'s `kid` is not a string")
    kty = _KEY_TYPES[alg[:2]]
    fitting = [
        jwk
        for jwk in keys
        if jwk.get("kty") == kty
        and jwk.get("use") in (None, "sig")
        and jwk.get("alg") in (None, alg)
        and (alg not in _CURVES or jwk.get("crv") == _CURVES[alg])
        and _may_verify(jwk.get("key_ops"))
        and (kid is None or jwk.get("kid") == kid)
    ]
    if not fitting:
        raise UnknownKey(f"no key in the JWKS fits alg {alg} and kid {kid!r}")
    if len(fitting) > 1:
        raise IDTokenError(f"{len(fitting)} keys in the JWKS fit alg {alg} and kid {kid!r}")
    public = {k: v for k, v in fitting[0].items() if k not in ("d", "p", "q", "dp", "dq", "qi")}
    if kty == "RSA":
        bits = _modulus_bits(public.get("n"))
        if bits < MIN_RSA_BITS:
            raise IDTokenError(f"the JWKS key is RSA of {bits} bits; at least {MIN_RSA_BITS} count")
    try:
        return JWKRegistry.import_key(public)
    except (JoseError, ValueError, TypeError) as err:
        raise IDTokenError("the JWKS key could not be imported") from err


def _modulus_bits(n: Any) -> int:
    """The size of an RSA JWK's modulus ``n`` in bits (0 when it is not base64url)."""
    if not isinstance(n, str):
        return 0
    try:
        return int.from_bytes(_b64decode(n, "RSA modulus")).bit_length()
    except IDTokenError:
        return 0


def _may_verify(key_ops: Any) -> bool:
    return key_ops is None or (isinstance(key_ops, list) and "verify" in key_ops)


def _signed_alg(
    header: Mapping[str, Any], algorithms: Sequence[str], what: str, *, hmac: bool
) -> str:
    """The header's ``alg`` once it is one of ``algorithms`` and of the expected family."""
    alg = header.get("alg")
    if not isinstance(alg, str) or alg.lower() == "none":
        raise IDTokenError(f"the {what} is unsigned (alg none)")
    if alg.upper().startswith("HS") != hmac:
        if hmac:
            raise IDTokenError(f"the {what} uses {alg}, not the declared HMAC algorithm")
        raise IDTokenError(f"the {what} uses symmetric {alg}; only public-key signatures count")
    if alg not in algorithms:
        raise IDTokenError(f"the {what}'s alg {alg} is not one of {', '.join(algorithms)}")
    if "crit" in header:
        raise IDTokenError(f"the {what} has critical header extensions (`crit`)")
    return alg


def _verified_claims(token: str, key: Key, alg: str, what: str) -> dict[str, Any]:
    try:
        signed = jws.deserialize_compact(token, key, algorithms=[alg])
    except JoseError as err:
        raise IDTokenError(f"the {what}'s signature is invalid ({err.error})") from err
    except (TypeError, ValueError) as err:  # malformed input joserfc does not name
        raise IDTokenError(f"the {what} is malformed") from err
    try:
        claims = msgspec.json.decode(signed.payload)
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise IDTokenError(f"the {what} payload is not JSON") from err
    if not isinstance(claims, dict):
        raise IDTokenError(f"the {what} payload is not a JSON object")
    return claims


def verify_signature(
    token: str,
    keys: Sequence[Mapping[str, Any]],
    algorithms: Sequence[str],
    what: str = "ID token",
) -> dict[str, Any]:
    """The claims of ``token`` once its signature checks out with a JWKS key."""
    header = read_header(token, what)
    alg = _signed_alg(header, algorithms, what, hmac=False)
    return _verified_claims(token, select_key(header, keys, what), alg, what)


def verify_hmac(
    token: str, client_secret: str, algorithms: Sequence[str], what: str = "ID token"
) -> dict[str, Any]:
    """The claims of ``token`` once its HMAC checks out, keyed by the client secret's UTF-8
    octets (OpenID Connect Core §10.1); ``algorithms`` are the declared one."""
    header = read_header(token, what)
    alg = _signed_alg(header, algorithms, what, hmac=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SecurityWarning)  # the service chose the secret
        key = OctKey.import_key(client_secret.encode())
    return _verified_claims(token, key, alg, what)


def _number(claims: Mapping[str, Any], name: str, *, required: bool) -> float | None:
    value = claims.get(name)
    if value is None:
        if required:
            raise IDTokenError(f"the ID token has no `{name}`")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise IDTokenError(f"the ID token's `{name}` is not a number")
    return float(value)


def check_claims(
    claims: Mapping[str, Any],
    *,
    issuer: str,
    client_id: str,
    now: float,
    nonce: str | None,
    max_age: int | None = None,
    tolerance: int = CLOCK_TOLERANCE,
) -> None:
    """Raise :class:`IDTokenError` unless the claims are for this client, now, from ``issuer``
    (and, when ``max_age`` was sent, for a sign-in at most ``max_age`` seconds old)."""
    if claims.get("iss") != issuer:
        raise IDTokenError("the ID token's `iss` is not the issuer", hint="issuer-mismatch")
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise IDTokenError("the ID token has no `sub`")
    aud = claims.get("aud")
    audiences = [aud] if isinstance(aud, str) else aud
    if not isinstance(audiences, list) or not all(isinstance(a, str) for a in audiences):
        raise IDTokenError("the ID token's `aud` is missing or malformed")
    if client_id not in audiences:
        raise IDTokenError("the ID token is not for this client (`aud`)")
    azp = claims.get("azp")
    if len(audiences) > 1 and azp is None:
        raise IDTokenError("the ID token has several audiences and no `azp`")
    if azp is not None and azp != client_id:
        raise IDTokenError("the ID token was issued to another party (`azp`)")
    exp = _number(claims, "exp", required=True)
    iat = _number(claims, "iat", required=True)
    nbf = _number(claims, "nbf", required=False)
    assert exp is not None
    assert iat is not None
    if exp <= now - tolerance:
        raise IDTokenError("the ID token has expired (`exp`)")
    if iat > now + tolerance:
        raise IDTokenError("the ID token was issued in the future (`iat`)")
    if nbf is not None and nbf > now + tolerance:
        raise IDTokenError("the ID token is not valid yet (`nbf`)")
    auth_time = _number(claims, "auth_time", required=max_age is not None)
    if max_age is not None and auth_time is not None and auth_time + max_age < now - tolerance:
        raise IDTokenError("the user signed in too long ago for `max_age` (`auth_time`)")
    found = claims.get("nonce")
    if nonce is None:
        if found is not None:
            raise IDTokenError("the ID token has a `nonce` but none was sent")
    elif not isinstance(found, str) or not hmac.compare_digest(found.encode(), nonce.encode()):
        raise IDTokenError("the ID token's `nonce` does not match")


def validate_id_token(
    id_token: str,
    *,
    jwks_uri: str | None,
    algorithms: Sequence[str],
    cache: ProviderCache,
    issuer: str,
    client_id: str,
    now: float,
    nonce: str | None,
    client_secret: str | None = None,
    max_age: int | None = None,
) -> Step[dict[str, Any]]:
    """The claims of a valid ``id_token`` (see :func:`provider_signed_claims`); ``max_age``
    is the authorization request's, if it had one."""
    claims = yield from provider_signed_claims(
        id_token,
        jwks_uri=jwks_uri,
        algorithms=algorithms,
        cache=cache,
        now=now,
        client_secret=client_secret,
    )
    check_claims(claims, issuer=issuer, client_id=client_id, now=now, nonce=nonce, max_age=max_age)
    return claims


def provider_signed_claims(
    token: str,
    *,
    jwks_uri: str | None,
    algorithms: Sequence[str],
    cache: ProviderCache,
    now: float,
    client_secret: str | None,
    what: str = "ID token",
) -> Step[dict[str, Any]]:
    """The claims of a JWS the provider signed: with the client secret when ``algorithms``
    is the declared HMAC one and the token uses it, else with the issuer's JWKS (an unknown
    key refetches it once, rate-limited)."""
    if not algorithms:
        raise IDTokenError(f"no acceptable {what} algorithm (the issuer lists only none/HMAC)")
    alg = read_header(token, what).get("alg")
    declared_hmac = any(a in HMAC_ID_TOKEN_ALGORITHMS for a in algorithms)
    if declared_hmac and isinstance(alg, str) and alg.upper().startswith("HS"):
        if not client_secret:
            raise IDTokenError(f"an HMAC-signed {what} needs the client secret to be verified")
        return verify_hmac(token, client_secret, algorithms, what)
    if jwks_uri is None:
        raise IDTokenError(f"the issuer publishes no `jwks_uri`: the {what} cannot be verified")
    return (yield from signed_claims(token, jwks_uri, algorithms, cache, now, what))


def signed_claims(
    token: str,
    jwks_uri: str,
    algorithms: Sequence[str],
    cache: ProviderCache,
    now: float,
    what: str = "ID token",
) -> Step[dict[str, Any]]:
    """The claims of ``token`` once its signature is verified with the issuer's JWKS; an
    unknown key refetches the JWKS once (rate-limited)."""
    keys = yield from get_jwks(jwks_uri, cache, now)
    try:
        return verify_signature(token, keys, algorithms, what)
    except UnknownKey:
        if not cache.may_refetch_jwks(jwks_uri, now):
            raise
        keys = yield from get_jwks(jwks_uri, cache, now, refresh=True)
        return verify_signature(token, keys, algorithms, what)
