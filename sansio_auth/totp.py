"""Time-based one-time passwords (RFC 6238, on HOTP, RFC 4226): pure functions of a key and
a time.

A code is good for its time step (``period`` seconds) and, to allow for clocks that drift
and for the seconds it takes to type, for the ``window`` steps on either side. A code is
accepted once: :func:`accepted_step` answers the step a code matched, and that step must be
later than the last one accepted for the key (kept by the adapter), so a code seen over a
shoulder or replayed from a log is refused, and so is any earlier one.
"""

from __future__ import annotations

import base64
import hmac
from typing import Literal
from urllib.parse import quote, urlencode

Algorithm = Literal["SHA1", "SHA256", "SHA512"]
DIGESTS = {"SHA1": "sha1", "SHA256": "sha256", "SHA512": "sha512"}
"""By name: ``hmac.digest`` then runs OpenSSL's one-shot HMAC (a constructor is slower)."""
PERIOD = 30
DIGITS = 6
WINDOW = 1
SECRET_BYTES = 20
"""160 bits, RFC 4226's recommended key length for HMAC-SHA-1."""


def hotp(key: bytes, counter: int, *, digits: int = DIGITS, algorithm: Algorithm = "SHA1") -> str:
    """RFC 4226's HOTP value of ``counter``: ``digits`` decimal digits."""
    mac = hmac.digest(key, counter.to_bytes(8, "big"), DIGESTS[algorithm])
    offset = mac[-1] & 0x0F
    number = int.from_bytes(mac[offset : offset + 4], "big") & 0x7FFFFFFF
    return str(number % 10**digits).zfill(digits)


def time_step(now: float, period: int = PERIOD) -> int:
    """The step Unix time ``now`` falls in (RFC 6238's ``T``, with ``T0 = 0``)."""
    return int(now // period)


def totp(
    key: bytes,
    now: float,
    *,
    period: int = PERIOD,
    digits: int = DIGITS,
    algorithm: Algorithm = "SHA1",
) -> str:
    """The code for time ``now``."""
    return hotp(key, time_step(now, period), digits=digits, algorithm=algorithm)


def clean_code(text: object, digits: int = DIGITS) -> str | None:
    """A typed code without the spaces and dashes people put in, or ``None`` when it is not
    ``digits`` ASCII digits."""
    if not isinstance(text, str):
        return None
    code = text.replace(" ", "").replace("-", "")
    return code if len(code) == digits and code.isascii() and code.isdigit() else None


def accepted_step(
    key: bytes,
    code: object,
    now: float,
    *,
    last_step: int | None,
    window: int = WINDOW,
    period: int = PERIOD,
    digits: int = DIGITS,
    algorithm: Algorithm = "SHA1",
) -> int | None:
    """The step ``code`` is the code of, within ``window`` steps of ``now`` and later than
    ``last_step`` (the last step accepted for ``key``), or ``None``: refused.

    Every candidate step is computed and compared in constant time, whichever matches.
    """
    given = clean_code(code, digits)
    if given is None:
        return None
    current = time_step(now, period)
    found = None
    for step in range(current - window, current + window + 1):
        expected = hotp(key, step, digits=digits, algorithm=algorithm)
        if hmac.compare_digest(expected, given) and (last_step is None or step > last_step):
            found = step if found is None else found
    return found


def new_secret(entropy: bytes) -> str:
    """A shared secret (base32, no padding: what authenticator apps read) of ``entropy``."""
    return base64.b32encode(entropy).decode("ascii").rstrip("=")


def secret_key(secret: str) -> bytes:
    """The key bytes of a base32 secret (padding, case and spaces forgiven)."""
    text = secret.replace(" ", "").upper()
    return base64.b32decode(text + "=" * (-len(text) % 8))


def provisioning_uri(
    secret: str,
    *,
    account: str,
    issuer: str,
    period: int = PERIOD,
    digits: int = DIGITS,
    algorithm: Algorithm = "SHA1",
) -> str:
    """The ``otpauth://totp/...`` URI an authenticator app scans (Google Authenticator's
    Key Uri Format): ``Issuer:account`` as label, the secret, and the parameters."""
    label = quote(f"{issuer}:{account}", safe="@")
    query = {
        "secret": secret,
        "issuer": issuer,
        "algorithm": algorithm,
        "digits": str(digits),
        "period": str(period),
    }
    return f"otpauth://totp/{label}?{urlencode(query, quote_via=quote)}"
