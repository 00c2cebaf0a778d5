"""The crypto floor: what one session read-and-rewrite costs in ``cryptography`` alone.

AES-256-CBC + HMAC-SHA-512/256 (A256CBC-HS512) decrypt of the session token, then
encrypt of the same plaintext with a fresh IV: no base64, no JSON, no HKDF (the key
is derived once, as the engine memoises it), the HMAC keyed once and copied, PKCS#7
padding by slicing: the cheapest way to do it with ``cryptography`` and ``hmac``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
from collections.abc import Callable

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from sansio_auth.jwt import derive_key

from .app import SECRET, SESSION_COOKIE, session_cookie

BATCH = 500


def _unb64(data: bytes) -> bytes:
    return base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))


def _tag(keyed: hmac.HMAC, aad: bytes, iv: bytes, ciphertext: bytes) -> bytes:
    mac = keyed.copy()
    mac.update(aad + iv + ciphertext + (len(aad) * 8).to_bytes(8, "big"))
    return mac.digest()[:32]


def round_trip() -> Callable[[], None]:
    """One decrypt + encrypt of the benchmark's session token, ready to call."""
    token = session_cookie().partition("=")[2].encode()
    aad, _, iv_b64, ct_b64, tag_b64 = token.split(b".")
    iv, ciphertext, tag = _unb64(iv_b64), _unb64(ct_b64), _unb64(tag_b64)
    key = derive_key(SECRET, SESSION_COOKIE).material
    keyed = hmac.new(key[:32], None, hashlib.sha512)
    aes = algorithms.AES(key[32:])

    def once() -> None:
        if not hmac.compare_digest(_tag(keyed, aad, iv, ciphertext), tag):
            raise RuntimeError("the floor must decrypt the real token")
        decryptor = Cipher(aes, modes.CBC(iv)).decryptor()
        padded = decryptor.update(ciphertext) + decryptor.finalize()
        plaintext = padded[: -padded[-1]]
        new_iv = os.urandom(16)
        pad = 16 - len(plaintext) % 16
        encryptor = Cipher(aes, modes.CBC(new_iv)).encryptor()
        new_ciphertext = encryptor.update(plaintext + bytes((pad,)) * pad) + encryptor.finalize()
        _tag(keyed, aad, new_iv, new_ciphertext)

    once()
    return once


def decrypt_encrypt_per_second(seconds: float) -> float:
    """Decrypt + encrypt round trips per second of the benchmark's session token."""
    once = round_trip()
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(BATCH):
            once()
        count += BATCH
    return count / (time.perf_counter() - start)
