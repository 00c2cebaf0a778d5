"""RFC 6238 TOTP: the RFC's published test vectors, and the window and replay rules."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth.totp import (
    accepted_step,
    clean_code,
    hotp,
    new_secret,
    provisioning_uri,
    secret_key,
    time_step,
    totp,
)

SEEDS = {
    "SHA1": b"12345678901234567890",
    "SHA256": b"12345678901234567890123456789012",
    "SHA512": b"1234567890123456789012345678901234567890123456789012345678901234",
}
# RFC 6238, Appendix B
VECTORS = [
    (59, "94287082", "46119246", "90693936"),
    (1111111109, "07081804", "68084774", "25091201"),
    (1111111111, "14050471", "67062674", "99943326"),
    (1234567890, "89005924", "91819424", "93441116"),
    (2000000000, "69279037", "90698825", "38618901"),
    (20000000000, "65353130", "77737706", "47863826"),
]


@pytest.mark.parametrize(("time", "sha1", "sha256", "sha512"), VECTORS)
def test_rfc_6238_vectors(time: int, sha1: str, sha256: str, sha512: str) -> None:
    for algorithm, expected in (("SHA1", sha1), ("SHA256", sha256), ("SHA512", sha512)):
        assert totp(SEEDS[algorithm], time, digits=8, algorithm=algorithm) == expected  # type: ignore[arg-type]


def test_rfc_4226_vectors() -> None:
    expected = ["755224", "287082", "359152", "969429", "338314",
                "254676", "287922", "162583", "399871", "520489"]  # fmt: skip
    assert [hotp(SEEDS["SHA1"], n) for n in range(10)] == expected


KEY = SEEDS["SHA1"]
times = st.integers(min_value=300, max_value=2**34)


@given(times, st.integers(min_value=-3, max_value=3))
def test_a_code_is_good_within_one_step_either_side(now: int, offset: int) -> None:
    step = time_step(now) + offset
    code = hotp(KEY, step)
    found = accepted_step(KEY, code, now, last_step=None)
    if abs(offset) <= 1:
        assert found is not None
        assert abs(found - time_step(now)) <= 1
    elif found is not None:  # another step in the window happens to have the same code
        assert hotp(KEY, found) == code
        assert abs(found - time_step(now)) <= 1


@given(times, st.integers(min_value=-1, max_value=1), st.integers(min_value=0, max_value=3))
def test_a_code_is_refused_once_its_step_or_a_later_one_was_used(
    now: int, offset: int, later: int
) -> None:
    step = time_step(now) + offset
    code = hotp(KEY, step)
    again = accepted_step(KEY, code, now, last_step=step + later)
    # refused, unless a later step of the window happens to have the very same code
    assert again is None or (again > step + later and hotp(KEY, again) == code)
    first = accepted_step(KEY, code, now, last_step=step - 1)
    assert first is not None
    assert first >= step


@given(st.text(max_size=12))
def test_anything_but_six_digits_is_refused(text: str) -> None:
    cleaned = text.replace(" ", "").replace("-", "")
    if not (len(cleaned) == 6 and cleaned.isascii() and cleaned.isdigit()):
        assert clean_code(text) is None
        assert accepted_step(KEY, text, 59, last_step=None) is None


def test_codes_typed_with_spaces_or_a_dash() -> None:
    code = totp(KEY, 1000)
    for typed in (f"{code[:3]} {code[3:]}", f"{code[:3]}-{code[3:]}", f" {code} "):
        assert accepted_step(KEY, typed, 1000, last_step=None) == time_step(1000)


@given(st.binary(min_size=20, max_size=20))
def test_secret_round_trip(raw: bytes) -> None:
    secret = new_secret(raw)
    assert "=" not in secret
    assert secret == secret.upper()
    assert secret_key(secret) == raw
    assert secret_key(secret.lower()) == raw


def test_provisioning_uri() -> None:
    uri = provisioning_uri("JBSWY3DPEHPK3PXP", account="ann@example.com", issuer="Example Co")
    parts = urlsplit(uri)
    assert (parts.scheme, parts.netloc) == ("otpauth", "totp")
    assert unquote(parts.path) == "/Example Co:ann@example.com"
    query = dict(parse_qsl(parts.query))
    assert query == {"secret": "JBSWY3DPEHPK3PXP", "issuer": "Example Co", "algorithm": "SHA1",
                     "digits": "6", "period": "30"}  # fmt: skip
