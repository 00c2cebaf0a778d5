"""Replay's stand-in for the provider's signing keys.

A recording keeps an ID token's header and claims but redacts its signature, so the
replay cannot feed the original token back. Instead it answers the recorded JWKS with
keys of its own (same ``kid``, ``kty``, curve and ``alg``) and signs each recorded ID
token's header and claims with the matching one: the engine verifies exactly what it
verified when recording, and the signature gets the recorded placeholder.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from joserfc.jwk import ECKey, OKPKey, RSAKey
from joserfc.jws import JWSRegistry

from sansio_auth.oauth.checks import b64url, unb64url

from ._recording import PLACEHOLDER

_PUBLIC = {"RSA": ("n", "e"), "EC": ("x", "y"), "OKP": ("x",)}
_CURVE_OF_ALG = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521", "EdDSA": "Ed25519"}


class Binder(Protocol):
    """Where a fed value is bound to the placeholder it stands for."""

    values: dict[str, str]

    def bind(self, value: str, placeholder: str) -> None: ...


def _b64json(part: str) -> Any:
    return json.loads(unb64url(part))


class Resigner:
    """Replay keys by (``kid``, ``kty``, curve), made on first use."""

    def __init__(self) -> None:
        self._keys: dict[tuple[str | None, str, str | None], Any] = {}

    def _key(self, kid: str | None, kty: str, crv: str | None) -> Any:
        slot = (kid, kty, crv)
        if slot not in self._keys:
            if kty == "RSA":
                self._keys[slot] = RSAKey.generate_key(2048)
            elif kty == "EC":
                self._keys[slot] = ECKey.generate_key(crv or "P-256")
            else:
                self._keys[slot] = OKPKey.generate_key("Ed448" if crv == "Ed448" else "Ed25519")
        return self._keys[slot]

    def jwk(self, recorded: dict[str, Any]) -> dict[str, Any]:
        """``recorded`` (a public JWK) with the replay key's public parameters."""
        kty = recorded.get("kty")
        if kty not in _PUBLIC:
            return recorded
        key = self._key(recorded.get("kid"), kty, recorded.get("crv"))
        public = key.as_dict(private=False)
        return {**recorded, **{name: public[name] for name in _PUBLIC[kty]}}

    def id_token(self, token: str, binder: Binder) -> str:
        """``token`` signed by the replay key when its signature is an unknown placeholder."""
        header_part, payload_part, signature = token.split(".")
        if not PLACEHOLDER.fullmatch(signature) or signature in binder.values:
            return token
        header = _b64json(header_part)
        alg = header.get("alg", "")
        kty = "RSA" if alg[:2] in ("RS", "PS") else "EC" if alg[:2] == "ES" else "OKP"
        algorithm = JWSRegistry.algorithms.get(alg)
        if algorithm is None:
            return token
        key = self._key(header.get("kid"), kty, _CURVE_OF_ALG.get(alg))
        raw = algorithm.sign(f"{header_part}.{payload_part}".encode(), key)
        new_signature = b64url(raw)
        binder.bind(new_signature, signature)
        return f"{header_part}.{payload_part}.{new_signature}"

    def body(self, body: dict[str, Any], binder: Binder) -> dict[str, Any]:
        """A recorded JSON response body with JWKS keys replaced and ID tokens re-signed."""
        keys = body.get("keys")
        if isinstance(keys, list):
            body = dict(body, keys=[self.jwk(k) if isinstance(k, dict) else k for k in keys])
        token = body.get("id_token")
        if isinstance(token, str) and token.count(".") == 2:
            body = dict(body, id_token=self.id_token(token, binder))
        return body
