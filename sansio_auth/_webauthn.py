"""The WebAuthn ceremonies' pure parts: the options JSON, the challenge cookie, and the
verification of the browser's responses (by the ``webauthn`` package, py_webauthn).

Wire-compatible with Auth.js (@auth/core with @simplewebauthn/server 9): the options
are the JSON @simplewebauthn emits; the challenge cookie ``authjs.challenge`` is a check
cookie (see :mod:`sansio_auth.oauth.checks`) whose value is itself a JWE (salt
``encodedWebauthnChallenge``, 15 minutes) of ``{"challenge", "registerData"?}``;
authenticators are stored with standard base64 ids and keys, transports comma-joined.

py_webauthn reads no clock for the attestation formats accepted here (``none``,
``packed`` and ``fido-u2f``: no root certificates are configured, so no certificate
chain is checked against the time); the others (``tpm``, ``apple``, ``android-key``,
``android-safetynet``) are refused. Browsers send ``none`` for the ``attestation:
"none"`` the options ask for.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from . import jwt
from .cookies import CHECK_MAX_AGE, CookieSpec
from .errors import Configuration, InvalidCheck, WebAuthnVerificationError
from .http import Cookie
from .oauth.checks import b64url, seal, unseal_claims
from .providers.webauthn import WebAuthnProvider, relying_party_value

CHALLENGE_SALT = "encodedWebauthnChallenge"
ACCEPTED_FORMATS = frozenset({"none", "packed", "fido-u2f"})
DEVICE_TYPES = {"single_device": "singleDevice", "multi_device": "multiDevice"}
"""py_webauthn's credential device types → @simplewebauthn's (what Auth.js stores)."""


class RelyingParty(NamedTuple):
    """Who the credentials are for: ``id`` (a domain), ``name``, and the expected ``origin``."""

    id: str
    name: str
    origin: str


def relying_party(provider: WebAuthnProvider, origin: str) -> RelyingParty:
    """The provider's ``relying_party`` overrides, else the request origin's host name,
    host and origin (Auth.js's defaults). A ``get_relaying_party`` function replaces this
    (the flow calls it: :func:`as_relying_party` checks what it returns)."""
    parts = urlsplit(origin)
    given = provider.relying_party
    return RelyingParty(
        id=relying_party_value(given.get("id")) or parts.hostname or "",
        name=relying_party_value(given.get("name")) or parts.netloc,
        origin=relying_party_value(given.get("origin")) or origin,
    )


def as_relying_party(value: Any) -> RelyingParty:
    """What a ``get_relaying_party`` function returned, checked: ``{"id", "name", "origin"}``
    strings; :class:`~sansio_auth.errors.Configuration` otherwise."""
    if isinstance(value, RelyingParty):
        return value
    if isinstance(value, Mapping):
        parts = [value.get(key) for key in RelyingParty._fields]
        strings = [part for part in parts if isinstance(part, str) and part]
        if len(strings) == len(parts):
            return RelyingParty(*strings)
    raise Configuration("`get_relaying_party` must return {'id', 'name', 'origin'} strings")


# -- Auth.js's per-ceremony options ---------------------------------------------------------------

CEREMONY_OPTIONS: Mapping[str, frozenset[str]] = {
    "registration_options": frozenset(
        {
            "timeout",
            "attestation_type",
            "authenticator_selection",
            "extensions",
            "supported_algorithm_ids",
        }
    ),
    "authentication_options": frozenset({"timeout", "user_verification", "extensions"}),
    "verify_registration_options": frozenset(
        {"require_user_verification", "supported_algorithm_ids"}
    ),
    "verify_authentication_options": frozenset({"require_user_verification"}),
}
"""The snake_case keys each of Auth.js's override options takes (the @simplewebauthn options
that the relying party, the user, the challenge and the credential lists leave)."""
SELECTION_KEYS = frozenset(
    {"authenticator_attachment", "resident_key", "require_resident_key", "user_verification"}
)
ATTESTATION_TYPES = ("none", "direct", "enterprise")


def check_ceremony_options(provider: WebAuthnProvider) -> None:
    """Refuse override options with unknown keys or values of the wrong kind."""
    where = f"the webauthn provider {provider.id!r}"
    if provider.get_relaying_party is not None and not callable(provider.get_relaying_party):
        raise Configuration(f"{where}: `get_relaying_party` must be a function")
    for name, known in CEREMONY_OPTIONS.items():
        given = getattr(provider, name)
        if not isinstance(given, Mapping):
            raise Configuration(f"{where}: `{name}` must be a mapping")
        unknown = sorted(set(given) - known)
        if unknown:
            raise Configuration(
                f"{where}: `{name}` has unknown keys {unknown} (known: {sorted(known)})"
            )
        _check_values(where, name, given)


def _check_values(where: str, name: str, given: Mapping[str, Any]) -> None:
    timeout = given.get("timeout", 1)
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0:
        raise Configuration(f"{where}: `{name}.timeout` must be a positive number of ms")
    for flag in ("require_user_verification",):
        if flag in given and not isinstance(given[flag], bool):
            raise Configuration(f"{where}: `{name}.{flag}` must be true or false")
    algorithms = given.get("supported_algorithm_ids", [-7])
    if not algorithms or not all(
        isinstance(a, int) and not isinstance(a, bool) for a in algorithms
    ):
        raise Configuration(f"{where}: `{name}.supported_algorithm_ids` must be COSE numbers")
    if given.get("attestation_type", "none") not in ATTESTATION_TYPES:
        raise Configuration(
            f"{where}: `{name}.attestation_type` must be one of {ATTESTATION_TYPES}"
        )
    if not isinstance(given.get("extensions", {}), Mapping):
        raise Configuration(f"{where}: `{name}.extensions` must be a mapping")
    selection = given.get("authenticator_selection", {})
    if not isinstance(selection, Mapping) or set(selection) - SELECTION_KEYS:
        raise Configuration(
            f"{where}: `{name}.authenticator_selection` takes {sorted(SELECTION_KEYS)}"
        )
    for key in ("user_verification", "resident_key"):
        for source in (given, selection):
            if key in source and source[key] not in ("required", "preferred", "discouraged"):
                raise Configuration(
                    f"{where}: `{name}` {key} must be required/preferred/discouraged"
                )


# -- ids ----------------------------------------------------------------------------------------


def to_base64(data: bytes) -> str:
    """Standard base64 with padding: how Auth.js stores credential ids and keys."""
    return base64.b64encode(data).decode()


def from_base64(text: str) -> bytes:
    """Bytes of base64 or base64url ``text`` (padding optional), as Node's ``Buffer`` reads
    ``"base64"``; :class:`ValueError` if it is neither."""
    normal = text.replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(normal + "=" * (-len(normal) % 4), validate=True)
    except (binascii.Error, ValueError) as err:
        raise ValueError("not base64") from err


def _descriptors(authenticators: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``allowCredentials`` / ``excludeCredentials`` entries for stored authenticators."""
    out = []
    for authenticator in authenticators:
        entry: dict[str, Any] = {
            "id": b64url(from_base64(str(authenticator["credential_id"]))),
            "type": "public-key",
        }
        transports = authenticator.get("transports")
        if transports:
            entry["transports"] = str(transports).split(",")
        out.append(entry)
    return out


# -- options ------------------------------------------------------------------------------------


def resident_key(selection: Mapping[str, Any], default: str) -> str:
    """The ``residentKey`` asked for, as @simplewebauthn decides it: the ``resident_key`` of
    ``selection`` (``authenticator_selection``), else ``"required"`` when it sets
    ``require_resident_key``, else ``default`` (the provider's)."""
    if "resident_key" in selection:
        return str(selection["resident_key"])
    return "required" if selection.get("require_resident_key") is True else default


def registration_options(
    provider: WebAuthnProvider,
    rp: RelyingParty,
    *,
    challenge: str,
    user_handle: str,
    user: Mapping[str, Any],
    exclude: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """PublicKeyCredentialCreationOptionsJSON, key for key as @simplewebauthn 9 emits it
    (``registration_options`` over the provider's flat options)."""
    given = provider.registration_options
    asked = given.get("authenticator_selection", {})
    chosen = {"user_verification": provider.user_verification, **asked}
    chosen["resident_key"] = resident_key(asked, provider.resident_key)
    selection: dict[str, Any] = {}
    if "authenticator_attachment" in chosen:
        selection["authenticatorAttachment"] = chosen["authenticator_attachment"]
    selection["residentKey"] = chosen["resident_key"]
    selection["userVerification"] = chosen["user_verification"]
    selection["requireResidentKey"] = chosen["resident_key"] == "required"
    algorithms = given.get("supported_algorithm_ids", provider.algorithms)
    return {
        "challenge": challenge,
        "rp": {"name": rp.name, "id": rp.id},
        "user": {
            "id": user_handle,
            "name": user["email"],
            "displayName": user.get("name") or user["email"],
        },
        "pubKeyCredParams": [{"alg": alg, "type": "public-key"} for alg in algorithms],
        "timeout": given.get("timeout", provider.timeout),
        "attestation": given.get("attestation_type", "none"),
        "excludeCredentials": _descriptors(exclude),
        "authenticatorSelection": selection,
        "extensions": {**given.get("extensions", {}), "credProps": True},
    }


def authentication_options(
    provider: WebAuthnProvider,
    rp: RelyingParty,
    *,
    challenge: str,
    allow: Sequence[Mapping[str, Any]] | None,
) -> dict[str, Any]:
    """PublicKeyCredentialRequestOptionsJSON (no ``allowCredentials``: discoverable), with
    ``authentication_options`` over the provider's flat options."""
    given = provider.authentication_options
    options: dict[str, Any] = {"challenge": challenge}
    if allow is not None:
        options["allowCredentials"] = _descriptors(allow)
    options["timeout"] = given.get("timeout", provider.timeout)
    options["userVerification"] = given.get("user_verification", provider.user_verification)
    if "extensions" in given:
        options["extensions"] = dict(given["extensions"])
    options["rpId"] = rp.id
    return options


# -- the challenge cookie -----------------------------------------------------------------------


def challenge_cookie(
    spec: CookieSpec,
    payload: Mapping[str, Any],
    *,
    provider_id: str,
    secrets: Sequence[str],
    now: float,
    entropy: Callable[[int], bytes],
) -> Cookie:
    """The ``authjs.challenge`` cookie keeping ``{"challenge", "registerData"?}``."""
    inner = jwt.encode(
        payload, secrets, CHALLENGE_SALT, now=now, entropy=entropy, max_age=CHECK_MAX_AGE
    )
    return seal(spec, inner, provider_id=provider_id, secrets=secrets, now=now, entropy=entropy)


def read_challenge(
    cookies: Mapping[str, str],
    spec: CookieSpec,
    *,
    provider_id: str,
    secrets: Sequence[str],
    now: float,
) -> dict[str, Any]:
    """The payload of the challenge cookie; :class:`InvalidCheck` if missing, bad or foreign."""
    inner = unseal_claims(
        cookies, spec, what="webauthnChallenge", provider_id=provider_id, secrets=secrets, now=now
    )["value"]
    try:
        payload = jwt.decode(inner, secrets, CHALLENGE_SALT, now=now)
    except jwt.InvalidToken as err:
        raise InvalidCheck("WebAuthn challenge could not be parsed", cause={"err": err}) from err
    if not isinstance(payload.get("challenge"), str):
        raise InvalidCheck("WebAuthn challenge was missing")
    return payload


# -- verification -------------------------------------------------------------------------------


def check_attestation_format(attestation_object: bytes) -> None:
    """Refuse a format not in :data:`ACCEPTED_FORMATS`, and a ``none`` attestation whose
    statement is not empty (W3C WebAuthn §8.7: ``attStmt`` is ``{}``; py_webauthn does not
    look). :class:`ValueError` names the fault."""
    from webauthn.helpers import parse_cbor

    decoded = parse_cbor(attestation_object)
    fmt = decoded.get("fmt") if isinstance(decoded, dict) else None
    if fmt not in ACCEPTED_FORMATS:
        raise ValueError(f"attestation format {str(fmt)[:40]!r} is not accepted")
    statement = decoded.get("attStmt")
    if not isinstance(statement, dict):
        raise ValueError("the attestation statement is not a map")
    if fmt == "none" and statement:
        raise ValueError("a `none` attestation must have an empty statement (`attStmt`)")


class NewCredential(NamedTuple):
    """A verified registration: the authenticator to store (without ``user_id``)."""

    credential_id: str
    authenticator: dict[str, Any]


def verify_registration(
    provider: WebAuthnProvider, rp: RelyingParty, response: Mapping[str, Any], challenge: str
) -> NewCredential:
    """Verify a RegistrationResponseJSON; :class:`WebAuthnVerificationError` if it fails."""
    from webauthn import verify_registration_response
    from webauthn.helpers.cose import COSEAlgorithmIdentifier

    given = provider.verify_registration_options
    algorithms = given.get("supported_algorithm_ids", provider.algorithms)
    try:
        check_attestation_format(from_base64(str(response["response"]["attestationObject"])))
        verified = verify_registration_response(
            credential=dict(response),
            expected_challenge=from_base64(challenge),
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            require_user_verification=given.get(
                "require_user_verification", provider.require_user_verification
            ),
            supported_pub_key_algs=[COSEAlgorithmIdentifier(a) for a in algorithms],
        )
    except Exception as err:  # any fault in the browser's data is a failed verification
        raise WebAuthnVerificationError(err) from err
    credential_id = to_base64(verified.credential_id)
    transports = response["response"].get("transports")
    authenticator = {
        "credential_id": credential_id,
        "provider_account_id": credential_id,
        "credential_public_key": to_base64(verified.credential_public_key),
        "counter": verified.sign_count,
        "credential_device_type": DEVICE_TYPES.get(
            verified.credential_device_type.value, verified.credential_device_type.value
        ),
        "credential_backed_up": verified.credential_backed_up,
        "transports": ",".join(map(str, transports)) if isinstance(transports, list) else None,
    }
    return NewCredential(credential_id, authenticator)


def verify_authentication(
    provider: WebAuthnProvider,
    rp: RelyingParty,
    response: Mapping[str, Any],
    challenge: str,
    authenticator: Mapping[str, Any],
) -> int:
    """Verify an AuthenticationResponseJSON signed by ``authenticator``; its new signature
    counter. A counter that does not grow (when either is non-zero) is refused: the
    credential was cloned, or the response replayed."""
    from webauthn import verify_authentication_response

    stored = int(authenticator.get("counter") or 0)
    try:
        verified = verify_authentication_response(
            credential=dict(response),
            expected_challenge=from_base64(challenge),
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            credential_public_key=from_base64(str(authenticator["credential_public_key"])),
            credential_current_sign_count=0,  # compared below, to tell a clone apart
            require_user_verification=provider.verify_authentication_options.get(
                "require_user_verification", provider.require_user_verification
            ),
        )
    except Exception as err:  # any fault in the browser's data is a failed verification
        raise WebAuthnVerificationError(err) from err
    counter = verified.new_sign_count
    if (counter > 0 or stored > 0) and counter <= stored:
        raise WebAuthnVerificationError(
            f"the signature counter went backwards ({stored} -> {counter}): "
            "the authenticator may have been cloned",
            cause={"credential_id": authenticator.get("credential_id"), "cloned": True},
        )
    return counter
