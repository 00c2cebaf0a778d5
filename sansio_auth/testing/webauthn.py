"""A software WebAuthn authenticator with its browser side, for tests.

It answers the options JSON of ``GET <base>/webauthn-options/<id>`` with the
``RegistrationResponseJSON`` / ``AuthenticationResponseJSON`` a browser would post
back in ``data``: keys EC P-256 (ES256) or Ed25519 (EdDSA), attestation ``none`` or
``packed`` (self attestation), a signature counter per credential, and the user
presence / verification flags you choose. Like the engine it is pure: keys, ids and
ECDSA nonces (RFC 6979) come from the ``entropy`` you pass.

>>> authenticator = SoftAuthenticator(entropy=seeded_entropy("passkeys"))
>>> options = browser.get("/auth/webauthn-options/passkey?email=ann@example.com").json()
>>> data = authenticator.respond(options, origin="http://localhost:3000")
>>> browser.post("/auth/callback/passkey", form={"action": options["action"],
...     "data": json.dumps(data), "csrfToken": browser.csrf_token()})
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from ..oauth.checks import b64url

Algorithm = Literal["ES256", "EdDSA"]
Attestation = Literal["none", "packed"]
COSE_ALGORITHMS: Mapping[Algorithm, int] = {"ES256": -7, "EdDSA": -8}

UP, UV, BE, BS, AT = 0x01, 0x04, 0x08, 0x10, 0x40
"""Authenticator data flags: user present, user verified, backup eligible, backed up,
attested credential data."""

_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


@dataclass
class Credential:
    """One credential the authenticator holds (``counter`` may be set to simulate a clone)."""

    id: bytes
    rp_id: str
    user_handle: str
    algorithm: Algorithm
    key: ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey
    counter: int

    @property
    def id_b64url(self) -> str:
        """The credential id as the browser's JSON spells it."""
        return b64url(self.id)

    def sign(self, data: bytes) -> bytes:
        """A WebAuthn signature of ``data`` (DER for ES256, raw for EdDSA)."""
        if isinstance(self.key, ed25519.Ed25519PrivateKey):
            return self.key.sign(data)
        return self.key.sign(data, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))

    def cose_key(self) -> bytes:
        """The public key as a COSE_Key (CBOR)."""
        public = self.key.public_key()
        if isinstance(public, ed25519.Ed25519PublicKey):
            raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            return cbor2.dumps({1: 1, 3: -8, -1: 6, -2: raw})
        numbers = public.public_numbers()
        x, y = numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: x, -3: y})


class SoftAuthenticator:
    """An authenticator plus the browser's part of the ceremony, in memory.

    ``user_present`` / ``user_verified`` are the flags it reports (override per call);
    ``counter_step`` is how much the signature counter grows per use (0: a synced
    passkey that keeps it at 0). ``attestation`` is ``none`` or ``packed`` (self).
    """

    def __init__(
        self,
        *,
        entropy: Callable[[int], bytes],
        algorithm: Algorithm = "ES256",
        attestation: Attestation = "none",
        user_present: bool = True,
        user_verified: bool = True,
        counter_step: int = 1,
        backed_up: bool = False,
        transports: tuple[str, ...] = ("internal", "hybrid"),
        aaguid: bytes = bytes(16),
    ) -> None:
        if algorithm not in COSE_ALGORITHMS:
            raise ValueError(f"algorithm must be one of {sorted(COSE_ALGORITHMS)}")
        if attestation not in ("none", "packed"):
            raise ValueError("attestation must be 'none' or 'packed'")
        self.entropy = entropy
        self.algorithm: Algorithm = algorithm
        self.attestation: Attestation = attestation
        self.user_present = user_present
        self.user_verified = user_verified
        self.counter_step = counter_step
        self.backed_up = backed_up
        self.transports = transports
        self.aaguid = aaguid
        self.credentials: dict[str, Credential] = {}
        """Every credential created, by its base64url id."""

    # -- the ceremonies ---------------------------------------------------------------------

    def respond(self, options_reply: Mapping[str, Any], *, origin: str, **overrides: Any) -> Any:
        """The response to a ``webauthn-options`` reply ``{"action", "options"}``."""
        if options_reply.get("action") == "register":
            return self.register(options_reply["options"], origin=origin, **overrides)
        return self.authenticate(options_reply["options"], origin=origin, **overrides)

    def register(
        self,
        options: Mapping[str, Any],
        *,
        origin: str,
        rp_id: str | None = None,
        user_present: bool | None = None,
        user_verified: bool | None = None,
    ) -> dict[str, Any]:
        """``navigator.credentials.create()`` for ``options``
        (PublicKeyCredentialCreationOptionsJSON): a new credential's RegistrationResponseJSON."""
        rp = rp_id or options["rp"]["id"]
        offered = [p.get("alg") for p in options.get("pubKeyCredParams", [])]
        if COSE_ALGORITHMS[self.algorithm] not in offered:
            raise ValueError(f"the relying party does not offer {self.algorithm}")
        excluded = {c.get("id") for c in options.get("excludeCredentials") or []}
        if any(c.rp_id == rp and c.id_b64url in excluded for c in self.credentials.values()):
            raise ValueError("InvalidStateError: a credential in excludeCredentials is here")
        credential = Credential(
            id=self.entropy(16),
            rp_id=rp,
            user_handle=str(options["user"]["id"]),
            algorithm=self.algorithm,
            key=self._new_key(),
            counter=0,
        )
        client_data = _client_data("webauthn.create", options["challenge"], origin)
        flags = self._flags(user_present, user_verified) | AT
        cose_key = credential.cose_key()
        attested = self.aaguid + len(credential.id).to_bytes(2, "big") + credential.id + cose_key
        auth_data = _auth_data(rp, flags, credential.counter) + attested
        statement: dict[str, Any] = {}
        if self.attestation == "packed":
            signed = auth_data + hashlib.sha256(client_data).digest()
            statement = {"alg": COSE_ALGORITHMS[self.algorithm], "sig": credential.sign(signed)}
        attestation_object = cbor2.dumps(
            {"fmt": self.attestation, "attStmt": statement, "authData": auth_data}
        )
        self.credentials[credential.id_b64url] = credential
        public_key = credential.key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return {
            "id": credential.id_b64url,
            "rawId": credential.id_b64url,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "attestationObject": b64url(attestation_object),
                "authenticatorData": b64url(auth_data),
                "transports": list(self.transports),
                "publicKeyAlgorithm": COSE_ALGORITHMS[self.algorithm],
                "publicKey": b64url(public_key),
            },
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
        }

    def authenticate(
        self,
        options: Mapping[str, Any],
        *,
        origin: str,
        rp_id: str | None = None,
        credential_id: str | None = None,
        user_present: bool | None = None,
        user_verified: bool | None = None,
    ) -> dict[str, Any]:
        """``navigator.credentials.get()`` for ``options`` (PublicKeyCredentialRequestOptionsJSON):
        an AuthenticationResponseJSON signed by ``credential_id``, else by the first allowed
        credential, else (discoverable) by the newest one for the relying party."""
        rp = rp_id or options["rpId"]
        credential = self._pick(rp, options.get("allowCredentials") or [], credential_id)
        credential.counter += self.counter_step
        client_data = _client_data("webauthn.get", options["challenge"], origin)
        auth_data = _auth_data(rp, self._flags(user_present, user_verified), credential.counter)
        signature = credential.sign(auth_data + hashlib.sha256(client_data).digest())
        return {
            "id": credential.id_b64url,
            "rawId": credential.id_b64url,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(credential.user_handle.encode()),
            },
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
        }

    # -- parts ------------------------------------------------------------------------------

    def _new_key(self) -> ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey:
        if self.algorithm == "EdDSA":
            return ed25519.Ed25519PrivateKey.from_private_bytes(self.entropy(32))
        scalar = int.from_bytes(self.entropy(32), "big") % (_P256_ORDER - 1) + 1
        return ec.derive_private_key(scalar, ec.SECP256R1())

    def _flags(self, present: bool | None, verified: bool | None) -> int:
        flags = UP if (self.user_present if present is None else present) else 0
        flags |= UV if (self.user_verified if verified is None else verified) else 0
        return flags | (BE | BS if self.backed_up else 0)

    def _pick(self, rp_id: str, allowed: list[Mapping[str, Any]], wanted: str | None) -> Credential:
        mine = [c for c in self.credentials.values() if c.rp_id == rp_id]
        if wanted is not None:
            mine = [c for c in mine if c.id_b64url == wanted]
        elif allowed:
            ids = {a.get("id") for a in allowed}
            mine = [c for c in mine if c.id_b64url in ids]
        if not mine:
            raise LookupError(f"NotAllowedError: no credential for {rp_id!r} here")
        return mine[-1]


def _client_data(kind: str, challenge: str, origin: str) -> bytes:
    """``clientDataJSON`` as browsers serialise it."""
    value = {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
    return json.dumps(value, separators=(",", ":")).encode()


def _auth_data(rp_id: str, flags: int, counter: int) -> bytes:
    return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + counter.to_bytes(4, "big")
