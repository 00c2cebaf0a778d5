"""Passwords (not in Auth.js): NIST SP 800-63B's rules, argon2id hashes with OWASP's
parameters, and the hash formats of the libraries users migrate from.

The engine never hashes: hashing is CPU work (tens of milliseconds by design), so it is an
action (:class:`~sansio_auth.events.HashPassword`, :class:`~sansio_auth.events.VerifyPassword`)
that a binding performs with the functions here, off its event loop. The salt comes from
the engine's entropy, so a hash is deterministic and a recorded flow replays.

Rules (NIST SP 800-63B §3.1.1.2): at least :data:`MIN_LENGTH` characters, at most
:data:`MAX_LENGTH` (long passphrases are welcome; the bound only caps the work one request
can ask for), no composition rules, Unicode normalised (NFKC) before hashing, not one of a
list of common passwords (:func:`common_passwords`, Django's 20,000, compared
case-insensitively), and an optional hook that refuses passwords known from breaches.

A store may keep its hashes in another scheme: it then names a :class:`PasswordHasher`
(its ``password_hasher`` attribute), which the actions carry; the default is
:data:`ARGON2ID`, the functions below.

Hashes written: argon2id, PHC string format (``$argon2id$v=19$m=19456,t=2,p=1$...``).
Hashes read (verify only; replaced by argon2id at the next sign-in):

* argon2 (any variant or parameters): ours, fastapi-users' (pwdlib), passlib's;
* Django's ``argon2$argon2id$...`` and ``pbkdf2_sha256$<iterations>$<salt>$<hash>``;
* bcrypt ``$2a$``/``$2b$``/``$2y$`` and Django's ``bcrypt$``/``bcrypt_sha256$`` (needs the
  ``bcrypt`` package: ``pip install sansio-auth[bcrypt]``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import unicodedata
import zlib
from collections.abc import Collection
from functools import cache, lru_cache
from typing import Literal, Protocol

import argon2
import msgspec
from argon2 import low_level

MIN_LENGTH = 8
"""Fewest characters a new password may have (NIST SP 800-63B)."""
MAX_LENGTH = 1024
"""Most characters a password may have (after NFKC): far beyond any passphrase, and a
bound on what one request makes the server hash (``Password(max_length=...)``)."""
BCRYPT_MAX_BYTES = 72
"""bcrypt reads at most 72 bytes of a password; the libraries that wrote such hashes
ignored the rest, so the rest is ignored when checking one."""

Problem = Literal["missing", "too_short", "too_long", "common"]
"""Why a new password is refused (the ``error`` the pages and JSON answers name)."""


class Argon2Params(msgspec.Struct, frozen=True, kw_only=True):
    """argon2id's cost. The default is OWASP's first recommendation (Password Storage Cheat
    Sheet): 19 MiB of memory, 2 iterations, 1 lane. A change takes effect for each user at
    their next sign-in (their hash is replaced)."""

    memory_cost: int = 19456
    """KiB of memory per hash."""
    time_cost: int = 2
    """Passes over the memory."""
    parallelism: int = 1
    hash_len: int = 32
    salt_len: int = 16


OWASP = Argon2Params()


class Checked(msgspec.Struct, frozen=True, kw_only=True):
    """A verification's outcome: whether the password matched, and whether its hash should
    be replaced by one with the current parameters."""

    valid: bool
    needs_rehash: bool = False


def normalize(password: str) -> str:
    """The form of ``password`` that is hashed: Unicode NFKC (so that the same passphrase
    typed on two keyboards is the same password)."""
    return unicodedata.normalize("NFKC", password)


def problem(
    password: object,
    *,
    min_length: int = MIN_LENGTH,
    max_length: int = MAX_LENGTH,
    common: Collection[str] = (),
) -> Problem | None:
    """Why ``password`` cannot be a new password, or ``None`` when it can: ``common`` holds
    the passwords refused as too common, in :func:`common_form` (e.g. :func:`common_passwords`)."""
    if not isinstance(password, str) or not password:
        return "missing"
    length = len(normalize(password))
    if length < min_length:
        return "too_short"
    if length > max_length:
        return "too_long"
    if common and common_form(password) in common:
        return "common"
    return None


def common_form(password: str) -> str:
    """The form a password is compared in with a list of common ones: NFKC, case-folded,
    without surrounding spaces (``" PassWord1"`` is ``"password1"``)."""
    return normalize(password).casefold().strip()


@cache
def common_passwords() -> frozenset[str]:
    """The built-in list of common passwords: Django's 20,000 (``CommonPasswordValidator``'s),
    in :func:`common_form`. Decoded from the package on first use (a few milliseconds), then
    kept; no file is opened."""
    from ._common_passwords import DATA  # imported here: ~75 KB that most imports never need

    return frozenset(zlib.decompress(base64.b64decode(DATA)).decode().split("\n"))


def too_long(password: str, max_length: int = MAX_LENGTH) -> bool:
    """Whether ``password`` is over the length bound (checked before any hashing)."""
    return len(password) > 4 * max_length or len(normalize(password)) > max_length


# -- hashing and checking (performed by the bindings) ------------------------------------------


def hash_password(password: str, salt: bytes, params: Argon2Params = OWASP) -> str:
    """The argon2id hash of ``password`` (normalised) with ``salt``, in PHC string format."""
    encoded = low_level.hash_secret(
        normalize(password).encode(),
        salt,
        time_cost=params.time_cost,
        memory_cost=params.memory_cost,
        parallelism=params.parallelism,
        hash_len=params.hash_len,
        type=low_level.Type.ID,
    )
    return encoded.decode("ascii")


def verify_password(password: str, stored: str | None, params: Argon2Params = OWASP) -> Checked:
    """Check ``password`` against the ``stored`` hash (any format this module reads).

    ``stored=None`` (no such user, or no password) checks against a hash of the current
    parameters all the same and answers "not valid": the same work, so the same time, as a
    wrong password. A stored value in no known format is "not valid" too.
    """
    if stored is None:
        _argon2_matches(_dummy_hash(params), password)
        return Checked(valid=False)
    if stored.startswith("$argon2"):
        valid = _argon2_matches(stored, password)
        return Checked(valid=valid, needs_rehash=valid and _argon2_outdated(stored, params))
    if stored.startswith("argon2$argon2"):  # Django
        return Checked(valid=_argon2_matches(stored[len("argon2") :], password), needs_rehash=True)
    if stored.startswith("pbkdf2_sha256$"):  # Django
        return Checked(valid=_pbkdf2_matches(stored, password), needs_rehash=True)
    if stored.startswith(("$2a$", "$2b$", "$2y$")):
        return Checked(valid=_bcrypt_matches(stored, password.encode()), needs_rehash=True)
    if stored.startswith("bcrypt$"):  # Django
        return Checked(valid=_bcrypt_matches(stored[7:], password.encode()), needs_rehash=True)
    if stored.startswith("bcrypt_sha256$"):  # Django: bcrypt of the password's SHA-256 in hex
        digest = hashlib.sha256(password.encode()).hexdigest().encode()
        return Checked(valid=_bcrypt_matches(stored[14:], digest), needs_rehash=True)
    return Checked(valid=False)


@lru_cache(maxsize=8)
def _dummy_hash(params: Argon2Params) -> str:
    return hash_password("not a password of anyone", b"\0" * params.salt_len, params)


def _argon2_matches(stored: str, password: str) -> bool:
    """Whether ``password`` matches an argon2 hash, normalised (as this module hashes) or as
    typed (as other libraries hashed it: only tried when the two differ)."""
    candidates = [normalize(password)]
    if candidates[0] != password:
        candidates.append(password)
    try:
        kind = argon2.extract_parameters(stored).type
    except argon2.exceptions.InvalidHashError:
        return False
    for candidate in candidates:
        try:
            if low_level.verify_secret(stored.encode("ascii"), candidate.encode(), kind):
                return True
        except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
            continue
    return False


def _argon2_outdated(stored: str, params: Argon2Params) -> bool:
    try:
        found = argon2.extract_parameters(stored)
    except argon2.exceptions.InvalidHashError:
        return True
    return (
        found.type is not low_level.Type.ID
        or found.version != low_level.ARGON2_VERSION
        or found.memory_cost != params.memory_cost
        or found.time_cost != params.time_cost
        or found.parallelism != params.parallelism
        or found.hash_len != params.hash_len
        or found.salt_len != params.salt_len
    )


class PasswordHasher(Protocol):
    """How a store's password hashes are made and checked; called by the binding that
    performs :class:`~sansio_auth.events.HashPassword` and
    :class:`~sansio_auth.events.VerifyPassword` (CPU work, off its event loop)."""

    def hash(self, password: str, salt: bytes, params: Argon2Params) -> str:
        """The hash of a new ``password``, salted with ``salt`` (the engine's entropy)."""
        ...

    def verify(self, password: str, stored: str | None, params: Argon2Params) -> Checked:
        """Check ``password`` against ``stored``; ``None`` (no such user, no password) does
        comparable work and answers "not valid"."""
        ...


class Argon2idHasher:
    """The engine's own scheme: :func:`hash_password` and :func:`verify_password`."""

    def hash(self, password: str, salt: bytes, params: Argon2Params) -> str:
        """:func:`hash_password`."""
        return hash_password(password, salt, params)

    def verify(self, password: str, stored: str | None, params: Argon2Params) -> Checked:
        """:func:`verify_password`."""
        return verify_password(password, stored, params)


ARGON2ID: PasswordHasher = Argon2idHasher()
"""The default :class:`PasswordHasher`: argon2id written, the formats above read."""


def _pbkdf2_matches(stored: str, password: str) -> bool:
    try:
        _, iterations, salt, expected = stored.split("$")
        rounds = int(iterations)
        wanted = base64.b64decode(expected, validate=True)
    except ValueError:
        return False
    if not 0 < rounds <= 10_000_000:  # a corrupt row must not cost minutes
        return False
    computed = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), rounds)
    return hmac.compare_digest(computed, wanted)


def _bcrypt_matches(stored: str, password: bytes) -> bool:
    try:
        import bcrypt
    except ImportError as err:
        raise RuntimeError(
            "a bcrypt password hash was found: install the bcrypt package "
            "(pip install 'sansio-auth[bcrypt]') to check it"
        ) from err
    try:
        return bool(bcrypt.checkpw(password[:BCRYPT_MAX_BYTES], stored.encode("ascii")))
    except (ValueError, UnicodeEncodeError):
        return False
