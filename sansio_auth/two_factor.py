"""Two-factor authentication's pure decisions and records (not in Auth.js).

* :func:`decide` — after a first factor, does the sign-in go on, stop at the challenge, or
  stop at a forced enrolment?
* recovery codes — :func:`new_recovery_codes` and their stored form, :func:`code_hashes`
  (an HMAC under a key derived from each secret, so a database dump does not reveal them);
* the TOTP secret at rest — :func:`seal_secret`/:func:`open_secret`, AES-256-GCM under a key
  derived from the secrets (newest first, so secrets rotate);
* an authenticator app locked after too many wrong codes — :func:`is_locked`, counted by
  :func:`failure_series`;
* the pending sign-in, the set-up and the trusted device — payloads of encrypted cookies
  (:mod:`sansio_auth.jwt`), checked by :func:`read_pending`, :func:`setup_secret` and
  :func:`trusts`.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

import msgspec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from . import jwt
from .oauth.checks import b64url, unb64url

RECOVERY_CODES = 10
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
"""Lower-case letters and digits without the look-alikes (i/l/1, o/0)."""
RECOVERY_LENGTH = 10
"""Characters per code (about 49 bits), shown as two groups of five."""
SECRET_SALT = "sansio-auth.totp-secret"  # noqa: S105 - a key derivation salt
RECOVERY_SALT = "sansio-auth.recovery-code"
SEALED_PREFIX = "v1."


class Next(enum.Enum):
    """What a sign-in does after its first factor."""

    SIGN_IN = "issue the session"
    CHALLENGE = "ask for the second factor"
    ENROL = "have the user set up a second factor first (required app-wide)"


SINGLE_FACTOR = "single-factor"
"""``two_factor.providers``' default: every way in that is a single factor the library runs
itself, a password and an e-mailed link (a passkey is two factors already; an OAuth or
OpenID Connect provider authenticates the user its own way; a credentials provider's
``authorize`` is the app's)."""
SINGLE_FACTOR_TYPES = frozenset({"password", "email"})
"""The account types of :data:`SINGLE_FACTOR`'s sign-ins."""


def covers(providers: Sequence[str] | str, provider_id: str, account_type: str = "") -> bool:
    """Whether two-factor applies to a sign-in with ``provider_id`` (an account of
    ``account_type``): ``"all"`` every one, :data:`SINGLE_FACTOR` the single-factor ones,
    else the ids listed."""
    if providers == "all":
        return True
    if providers == SINGLE_FACTOR:
        return account_type in SINGLE_FACTOR_TYPES
    return provider_id in providers


def decide(*, covered: bool, enrolled: bool, required: bool, trusted: bool) -> Next:
    """The second-factor table.

    ``covered``: two-factor applies to the provider signed in with; ``enrolled``: the user
    has a second factor; ``required``: the app requires one of everybody
    (``require_two_factor``); ``trusted``: the browser holds a valid "trust this device"
    cookie for the user.
    """
    if not covered:
        return Next.SIGN_IN
    if enrolled:
        return Next.SIGN_IN if trusted else Next.CHALLENGE
    return Next.ENROL if required else Next.SIGN_IN


# -- recovery codes ------------------------------------------------------------------------------


def new_recovery_codes(entropy: Callable[[int], bytes], count: int = RECOVERY_CODES) -> list[str]:
    """``count`` fresh codes, ``xxxxx-xxxxx``, from the injected entropy."""
    codes: list[str] = []
    size = len(RECOVERY_ALPHABET)
    while len(codes) < count:
        chars: list[str] = []
        while len(chars) < RECOVERY_LENGTH:
            for byte in entropy(16):
                if byte < 256 - 256 % size:  # no modulo bias
                    chars.append(RECOVERY_ALPHABET[byte % size])
        code = "".join(chars[:RECOVERY_LENGTH])
        formatted = f"{code[:5]}-{code[5:]}"
        if formatted not in codes:
            codes.append(formatted)
    return codes


def clean_recovery_code(text: object) -> str | None:
    """A typed recovery code without case, spaces or dashes, or ``None`` if it cannot be one."""
    if not isinstance(text, str):
        return None
    code = text.replace(" ", "").replace("-", "").lower()
    if len(code) != RECOVERY_LENGTH or any(c not in RECOVERY_ALPHABET for c in code):
        return None
    return code


def code_hash(code: str, secret: str) -> str:
    """The stored form of a (cleaned) recovery code under ``secret``."""
    key = jwt.derive_key(secret, RECOVERY_SALT).material[:32]
    return hmac.new(key, code.encode(), hashlib.sha256).hexdigest()


def code_hashes(code: str, secrets: Sequence[str]) -> list[str]:
    """The forms ``code`` may be stored in: one per secret (codes made before a rotation)."""
    return [code_hash(code, secret) for secret in secrets]


def stored_codes(codes: Iterable[str], secret: str) -> list[str]:
    """What is stored for freshly made ``codes``."""
    return [code_hash(clean, secret) for c in codes if (clean := clean_recovery_code(c))]


# -- the TOTP secret at rest ---------------------------------------------------------------------


@lru_cache(maxsize=16)
def _aes(secret: str) -> tuple[AESGCM, str]:
    key = jwt.derive_key(secret, SECRET_SALT, "A256GCM")
    return AESGCM(key.material), key.kid[:8]


def seal_secret(totp_secret: str, secrets: Sequence[str], nonce: bytes) -> str:
    """``totp_secret`` encrypted under the newest secret: ``v1.<key id>.<nonce+ciphertext>``."""
    aes, kid = _aes(secrets[0])
    return f"{SEALED_PREFIX}{kid}.{b64url(nonce + aes.encrypt(nonce, totp_secret.encode(), None))}"


def open_secret(sealed: str, secrets: Sequence[str]) -> str:
    """The TOTP secret :func:`seal_secret` sealed; :class:`ValueError` when no secret opens it."""
    if not sealed.startswith(SEALED_PREFIX):
        raise ValueError("not a sealed TOTP secret")
    kid, _, data = sealed[len(SEALED_PREFIX) :].partition(".")
    raw = unb64url(data)
    for secret in secrets:
        aes, own = _aes(secret)
        if own != kid:
            continue
        try:
            return aes.decrypt(raw[:12], raw[12:], None).decode()
        except Exception as err:  # cryptography's InvalidTag
            raise ValueError("the sealed TOTP secret was altered") from err
    raise ValueError("no configured secret opens this TOTP secret (was the secret rotated out?)")


# -- the stored record ---------------------------------------------------------------------------

LOCKED_STEP = 2**62
"""The ``totp_last_step`` of an authenticator app locked after too many wrong codes: later
than any real step, so every code of the app is refused (``use_totp_step`` cannot go back)
until it is set up again. Recovery codes and passkeys still answer."""


def is_locked(record: Mapping[str, Any] | None) -> bool:
    """Whether the user's authenticator app (and e-mailed codes) are locked
    (:data:`LOCKED_STEP`)."""
    step = record.get("totp_last_step") if record else None
    return isinstance(step, int) and step >= LOCKED_STEP


def failure_series(user_id: str, record: Mapping[str, Any]) -> str:
    """What the wrong codes of ``user_id`` are counted under: their second factor as it
    stands (set up at, last app step used, recovery codes left), so a right code of the app
    or a recovery code starts a new count, and so does setting the factor up again."""
    codes = record.get("recovery_codes") or ()
    return f"{user_id}:{enrolled_at(record)}:{record.get('totp_last_step')}:{len(codes)}"


def enrolled_at(record: Mapping[str, Any] | None) -> int | None:
    """When the user's second factor was set up (Unix seconds), ``None`` if it was not."""
    if not record:
        return None
    value = record.get("enabled_at")
    if isinstance(value, datetime):
        return int(value.timestamp())
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return None


# -- pending sign-ins and trusted devices --------------------------------------------------------


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    """A sign-in between its first and second factor (held in an encrypted cookie)."""

    user_id: str
    account: dict[str, Any]
    id: str = ""
    """A random name of this waiting sign-in: what its set-up and e-mailed codes are bound to."""
    email_codes: int = 0
    """How many codes were e-mailed for it: only the last one is valid."""
    profile: dict[str, Any] | None = None
    is_new_user: bool = False
    enrol: bool = False
    """The user must set up a second factor before the session is issued."""
    label: str = ""
    """How authenticator apps name the account (the user's address) for a forced set-up."""
    kept_at: float | None = None
    """The revocation the session will be kept by (see ``LoginResult.kept_at``)."""


def pending_payload(pending: Pending) -> dict[str, Any]:
    """The claims of the pending cookie."""
    return {"pending": msgspec.to_builtins(pending)}


def read_pending(claims: Mapping[str, Any]) -> Pending:
    """The :class:`Pending` of decrypted claims; :class:`ValueError` if malformed."""
    try:
        return msgspec.convert(claims.get("pending"), Pending)
    except msgspec.ValidationError as err:
        raise ValueError(f"the pending sign-in is malformed: {err}") from err


def setup_payload(secret: str, user_id: str, bound_to: str) -> dict[str, Any]:
    """The claims of the set-up cookie: the new app secret, for ``user_id`` in the session
    (or waiting sign-in) ``bound_to``."""
    return {"secret": secret, "sub": user_id, "bound_to": bound_to}


def setup_secret(claims: Mapping[str, Any], user_id: str, bound_to: str) -> str | None:
    """The secret of decrypted set-up ``claims`` if they were made for ``user_id`` in
    ``bound_to``, else ``None`` (a cookie copied from another account or session)."""
    secret = claims.get("secret")
    if claims.get("sub") != user_id or claims.get("bound_to") != bound_to:
        return None
    return secret if isinstance(secret, str) else None


def trust_payload(user_id: str, since: int) -> dict[str, Any]:
    """The claims of a "trust this device" cookie for ``user_id`` (second factor set up at
    ``since``: a new set-up, or turning two-factor off, voids the cookies made before)."""
    return {"sub": user_id, "since": since}


def trusts(claims: Mapping[str, Any] | None, user_id: str, since: int | None) -> bool:
    """Whether decrypted trust-cookie ``claims`` trust this device for ``user_id``."""
    return (
        claims is not None
        and since is not None
        and claims.get("sub") == user_id
        and claims.get("since") == since
    )
