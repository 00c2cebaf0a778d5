"""The session token: Auth.js's JWE, byte-compatible.

``alg: dir`` with ``enc: A256CBC-HS512`` (``A256GCM`` accepted on decode); the key
is HKDF-SHA256 of the secret with the salt (the cookie name) and the info string
``Auth.js Generated Encryption Key (<salt>)``; the protected header is exactly
``{"alg","enc","kid"}`` with ``kid`` the RFC 7638 thumbprint of the key. A cookie
written by ``@auth/core`` with the same secret decodes here, and the reverse.

The JWE is written with ``cryptography`` primitives rather than a JOSE library so
that the IV comes from the injected entropy (the engine stays deterministic) and
the hot path stays short; tests check it against ``joserfc`` and ``@auth/core``.
"""

from __future__ import annotations

import binascii
import contextlib
import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import msgspec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

DEFAULT_MAX_AGE = 30 * 24 * 60 * 60
"""Seconds a session token lives unless told otherwise: 30 days, as in Auth.js."""
CLOCK_TOLERANCE = 15
"""Seconds of clock skew tolerated when checking a token's ``exp`` and ``nbf``."""
Encryption = Literal["A256CBC-HS512", "A256GCM"]
"""The JWE content encryptions Auth.js uses for session tokens."""
Entropy = Callable[[int], bytes]
"""A source of random bytes: ``entropy(n)`` returns ``n`` of them."""
JWT = dict[str, Any]
"""A session token's claims."""


class InvalidToken(ValueError):
    """The token is malformed, was not made with any of the secrets, or has expired."""


@dataclass(frozen=True, slots=True)
class _Key:
    material: bytes
    kid: str
    header_b64: bytes
    aes: algorithms.AES | None
    """The CBC half as a ready cipher algorithm (``None`` for A256GCM)."""
    mac: hmac.HMAC | None
    """The HMAC-SHA-512 half, keyed once: each tag is computed on a copy."""


def _b64(data: bytes) -> bytes:
    return binascii.b2a_base64(data, newline=False).translate(_TO_URLSAFE_B64).rstrip(b"=")


def _unb64(data: bytes) -> bytes:
    if data.endswith(b"="):  # strict mode refuses any "=" before the padding we add
        raise InvalidToken("padded base64url")
    try:
        decoded = binascii.a2b_base64(
            data.translate(_TO_STANDARD_B64) + b"=" * (-len(data) % 4), strict_mode=True
        )
    except (binascii.Error, ValueError) as err:
        raise InvalidToken("bad base64url") from err
    # Non-canonical spellings (unused low bits set in the last character) would make
    # tokens malleable: the same bytes under another string.
    unused_bits = _UNUSED_BITS[len(data) % 4]
    if unused_bits and _B64_VALUE[data[-1]] & unused_bits:
        raise InvalidToken("non-canonical base64url")
    return decoded


_UNUSED_BITS = (0, 0, 0x0F, 0x03)
"""Bits of the last character that carry no data, by the length of the text mod 4."""
_TO_STANDARD_B64 = bytes.maketrans(b"-_+/", b"+/-_")  # '+' and '/' become invalid
_TO_URLSAFE_B64 = bytes.maketrans(b"+/", b"-_")
_B64_VALUE = {
    ord(c): i
    for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
}


@lru_cache(maxsize=256)
def derive_key(secret: str, salt: str, enc: Encryption = "A256CBC-HS512") -> _Key:
    """The encryption key for ``secret`` and ``salt`` (memoised: HKDF runs once per pair)."""
    length = 64 if enc == "A256CBC-HS512" else 32
    material = HKDF(
        algorithm=hashes.SHA256(),
        length=length,
        salt=salt.encode(),
        info=f"Auth.js Generated Encryption Key ({salt})".encode(),
    ).derive(secret.encode())
    jwk = b'{"k":"' + _b64(material) + b'","kty":"oct"}'
    digest = hashlib.sha512 if length == 64 else hashlib.sha256
    kid = _b64(digest(jwk).digest()).decode()
    header = msgspec.json.encode({"alg": "dir", "enc": enc, "kid": kid})
    if length == 64:
        aes, mac = algorithms.AES(material[32:]), hmac.new(material[:32], None, hashlib.sha512)
    else:
        aes, mac = None, None
    return _Key(material, kid, _b64(header), aes, mac)


def _secrets(secret: str | Sequence[str]) -> Sequence[str]:
    return (secret,) if isinstance(secret, str) else secret


def encode(
    token: Mapping[str, Any],
    secret: str | Sequence[str],
    salt: str,
    *,
    now: float,
    entropy: Entropy,
    max_age: int = DEFAULT_MAX_AGE,
) -> str:
    """Encrypt ``token`` adding ``iat``, ``exp`` and ``jti``; the first secret is used."""
    key = derive_key(_secrets(secret)[0], salt)
    issued = int(now)
    claims = {**token, "iat": issued, "exp": issued + max_age, "jti": uuid_v4(entropy(16))}
    iv = entropy(16)
    payload = msgspec.json.encode(claims)
    pad = 16 - len(payload) % 16  # PKCS#7
    plaintext = payload + bytes((pad,)) * pad
    assert key.aes is not None
    encryptor = Cipher(key.aes, modes.CBC(iv)).encryptor()
    ciphertext = encryptor.update(plaintext) + encryptor.finalize()
    tag = _cbc_tag(key, key.header_b64, iv, ciphertext)
    return b".".join((key.header_b64, b"", _b64(iv), _b64(ciphertext), _b64(tag))).decode()


def uuid_v4(random: bytes) -> str:
    """The version 4 UUID made of 16 ``random`` bytes, as ``str(uuid.UUID(bytes=random,
    version=4))`` spells it."""
    b = bytearray(random)
    b[6] = b[6] & 0x0F | 0x40  # version 4
    b[8] = b[8] & 0x3F | 0x80  # RFC 4122 variant
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _cbc_tag(key: _Key, aad: bytes, iv: bytes, ciphertext: bytes) -> bytes:
    assert key.mac is not None
    mac = key.mac.copy()
    mac.update(aad + iv + ciphertext + (len(aad) * 8).to_bytes(8, "big"))
    return mac.digest()[:32]


def decode(token: str, secret: str | Sequence[str], salt: str, *, now: float) -> JWT:
    """Decrypt and check ``token``; raise :class:`InvalidToken` on any failure.

    Each secret is tried (by ``kid``, or the first one when the header has none);
    ``exp`` and ``nbf`` are checked with a 15 s tolerance.
    """
    parts = token.encode("ascii", "replace").split(b".")
    if len(parts) != 5 or parts[1]:
        raise InvalidToken("not a compact JWE with direct encryption")
    header_b64, _, iv_b64, ct_b64, tag_b64 = parts
    secrets = _secrets(secret)
    key = _own_key(header_b64, secrets, salt)
    enc: Encryption = "A256CBC-HS512"
    if key is None:
        enc, key = _key_of_header(header_b64, secrets, salt)
    iv, ciphertext, tag = _unb64(iv_b64), _unb64(ct_b64), _unb64(tag_b64)
    plaintext = (
        _decrypt_cbc(key, header_b64, iv, ciphertext, tag)
        if enc == "A256CBC-HS512"
        else _decrypt_gcm(key, header_b64, iv, ciphertext, tag)
    )
    try:
        claims = msgspec.json.decode(plaintext)
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise InvalidToken("payload is not JSON") from err
    if not isinstance(claims, dict):
        raise InvalidToken("payload is not a JSON object")
    _check_times(claims, now)
    return claims


class DecodedTokens:
    """The claims of the last tokens :func:`decode` read (by salt and token, at most
    ``size``), so that a browser sending the same session cookie again is not decrypted
    again; the times (``exp``, ``nbf``) are checked on every read. An engine keeps one for
    the session reads that call no user code (its secrets are fixed). A token that fails
    is never kept: each try costs a whole decryption."""

    __slots__ = ("_claims", "_size")

    def __init__(self, size: int = 1024) -> None:
        self._claims: dict[tuple[str, str], JWT] = {}
        self._size = size

    def decode(self, token: str, secrets: Sequence[str], salt: str, *, now: float) -> JWT:
        """:func:`decode`'s claims (shared: not to be changed)."""
        key = (salt, token)
        claims = self._claims.get(key)
        if claims is not None:
            _check_times(claims, now)
            return claims
        claims = decode(token, secrets, salt, now=now)
        if len(self._claims) >= self._size:
            # the oldest goes; the threads of a sync server share the engine, so another
            # thread may change the dict meanwhile
            with contextlib.suppress(RuntimeError, StopIteration):
                self._claims.pop(next(iter(self._claims)), None)
        self._claims[key] = claims
        return claims


def made_with(token: str, secret: str, salt: str) -> bool:
    """Whether ``token``'s header names the key of ``secret`` (no ``kid`` means the first one).

    Lets a reader re-issue tokens still encrypted with an older secret after a rotation.
    """
    encoded_header = token.partition(".")[0].encode("ascii", "replace")
    if encoded_header == derive_key(secret, salt).header_b64:  # our own tokens: no parsing
        return True
    try:
        header = msgspec.json.decode(_unb64(encoded_header))
    except (InvalidToken, msgspec.DecodeError, UnicodeDecodeError):
        return False
    if not isinstance(header, dict) or header.get("kid") is None:
        return True
    enc = header.get("enc")
    if enc not in ("A256CBC-HS512", "A256GCM"):
        return False
    return bool(header["kid"] == derive_key(secret, salt, enc).kid)


def rotated(token: str, secrets: Sequence[str], salt: str) -> bool:
    """Whether ``token``, which :func:`decode` read with ``secrets``, was made with another
    secret than the first (a reader re-issues it with the first); with one secret, never."""
    return len(secrets) > 1 and not made_with(token, secrets[0], salt)


def _own_key(header_b64: bytes, secrets: Sequence[str], salt: str) -> _Key | None:
    """The key of the secret whose own header (as :func:`encode` writes it) ``header_b64``
    is, byte for byte: the header of every token this library made, read without parsing."""
    for secret in secrets:
        key = derive_key(secret, salt)
        if key.header_b64 == header_b64:
            return key
    return None


def _key_of_header(header_b64: bytes, secrets: Sequence[str], salt: str) -> tuple[Encryption, _Key]:
    """The encryption and the key a header written by another library names."""
    try:
        header = msgspec.json.decode(_unb64(header_b64))
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise InvalidToken("bad header") from err
    if not isinstance(header, dict) or header.get("alg") != "dir":
        raise InvalidToken("unsupported alg")
    enc = header.get("enc")
    if enc not in ("A256CBC-HS512", "A256GCM"):
        raise InvalidToken("unsupported enc")
    return enc, _find_key(header.get("kid"), secrets, salt, enc)


def _find_key(kid: object, secrets: Sequence[str], salt: str, enc: Encryption) -> _Key:
    if not secrets:
        raise InvalidToken("no secret")
    if kid is None:
        return derive_key(secrets[0], salt, enc)
    for secret in secrets:
        key = derive_key(secret, salt, enc)
        if hmac.compare_digest(key.kid.encode(), str(kid).encode()):  # any kid, even non-ASCII
            return key
    raise InvalidToken("no matching decryption secret")


def _decrypt_cbc(key: _Key, aad: bytes, iv: bytes, ciphertext: bytes, tag: bytes) -> bytes:
    if len(iv) != 16 or len(tag) != 32 or not ciphertext or len(ciphertext) % 16:
        raise InvalidToken("bad CBC parameters")
    if not hmac.compare_digest(tag, _cbc_tag(key, aad, iv, ciphertext)):
        raise InvalidToken("authentication tag mismatch")
    assert key.aes is not None
    decryptor = Cipher(key.aes, modes.CBC(iv)).decryptor()
    padded = decryptor.update(ciphertext) + decryptor.finalize()
    pad = padded[-1]  # PKCS#7; the tag is already verified, so no padding oracle here
    if not 1 <= pad <= 16 or padded[-pad:] != bytes([pad]) * pad:
        raise InvalidToken("bad padding")
    return padded[:-pad]


def _decrypt_gcm(key: _Key, aad: bytes, iv: bytes, ciphertext: bytes, tag: bytes) -> bytes:
    if len(iv) != 12 or len(tag) != 16:
        raise InvalidToken("bad GCM parameters")
    try:
        return AESGCM(key.material).decrypt(iv, ciphertext + tag, aad)
    except Exception as err:  # cryptography raises InvalidTag
        raise InvalidToken("authentication tag mismatch") from err


def _check_times(claims: Mapping[str, Any], now: float) -> None:
    for name in ("exp", "nbf", "iat"):
        value = claims.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise InvalidToken(f"{name} is not a number")
    exp, nbf = claims.get("exp"), claims.get("nbf")
    if exp is not None and now - CLOCK_TOLERANCE >= exp:
        raise InvalidToken("expired")
    if nbf is not None and now + CLOCK_TOLERANCE < nbf:
        raise InvalidToken("not yet valid")
