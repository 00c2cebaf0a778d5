"""Password rules and hashes: argon2id written, the migration formats read, outdated hashes
flagged, the dummy check for unknown users, NIST SP 800-63B's rules."""

from __future__ import annotations

import base64
import hashlib

import argon2
import bcrypt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth.passwords import (
    MAX_LENGTH,
    MIN_LENGTH,
    OWASP,
    Argon2Params,
    hash_password,
    normalize,
    problem,
    too_long,
    verify_password,
)

FAST = Argon2Params(memory_cost=64, time_cost=1)
SALT = b"0123456789abcdef"


def test_argon2id_with_owasp_parameters_by_default() -> None:
    hashed = hash_password("correct horse", SALT)
    found = argon2.extract_parameters(hashed)
    assert hashed.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert (found.memory_cost, found.time_cost, found.parallelism) == (19456, 2, 1)
    assert verify_password("correct horse", hashed).valid
    assert not verify_password("correct horse", hashed).needs_rehash
    assert not verify_password("correct hors", hashed).valid


def test_the_hash_is_deterministic_in_its_salt() -> None:
    assert hash_password("pw", SALT, FAST) == hash_password("pw", SALT, FAST)
    assert hash_password("pw", SALT, FAST) != hash_password("pw", b"fedcba9876543210", FAST)


def test_a_hash_of_other_parameters_is_valid_and_flagged_for_rehash() -> None:
    old = hash_password("pw-pw-pw-pw", SALT, FAST)
    checked = verify_password("pw-pw-pw-pw", old, OWASP)
    assert checked.valid
    assert checked.needs_rehash
    assert not verify_password("nope-nope", old, OWASP).needs_rehash  # only a valid one


def test_no_stored_hash_does_the_same_work_and_is_never_valid() -> None:
    assert verify_password("anything at all", None, FAST).valid is False


def test_unicode_is_normalised_before_hashing() -> None:
    composed, decomposed = "caf\u00e9 au lait", "cafe\u0301 au lait"
    assert normalize(composed) == normalize(decomposed)
    assert verify_password(decomposed, hash_password(composed, SALT, FAST), FAST).valid


def test_argon2_hashes_of_other_libraries_check_as_typed() -> None:
    """fastapi-users (pwdlib) and passlib hash the password as typed, argon2id or argon2i."""
    decomposed = "cafe\u0301 au lait"
    for kind in (argon2.Type.ID, argon2.Type.I):
        foreign = argon2.PasswordHasher(time_cost=1, memory_cost=64, type=kind).hash(decomposed)
        checked = verify_password(decomposed, foreign, FAST)
        assert checked.valid
        assert checked.needs_rehash


def django_pbkdf2(password: str, salt: str = "seasalt", iterations: int = 1000) -> str:
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), iterations)
    return f"pbkdf2_sha256${iterations}${salt}${base64.b64encode(digest).decode()}"


def test_django_pbkdf2_sha256_hashes() -> None:
    stored = django_pbkdf2("letmein123")
    assert verify_password("letmein123", stored, FAST).valid
    assert verify_password("letmein123", stored, FAST).needs_rehash
    assert not verify_password("letmein124", stored, FAST).valid
    assert not verify_password("letmein123", "pbkdf2_sha256$x$y$z", FAST).valid
    assert not verify_password("letmein123", "pbkdf2_sha256$99999999999$s$AAAA", FAST).valid


def test_django_argon2_hashes() -> None:
    inner = argon2.PasswordHasher(time_cost=1, memory_cost=64).hash("letmein123")
    stored = "argon2" + inner  # Django's Argon2PasswordHasher: "argon2$argon2id$v=19$..."
    assert verify_password("letmein123", stored, FAST).valid
    assert not verify_password("letmein124", stored, FAST).valid


def test_bcrypt_hashes_of_fastapi_users_passlib_and_django() -> None:
    plain = bcrypt.hashpw(b"letmein123", bcrypt.gensalt(rounds=4)).decode()
    sha = hashlib.sha256(b"letmein123").hexdigest().encode()
    for stored, password in (
        (plain, "letmein123"),
        ("bcrypt$" + plain, "letmein123"),
        ("bcrypt_sha256$" + bcrypt.hashpw(sha, bcrypt.gensalt(rounds=4)).decode(), "letmein123"),
    ):
        assert verify_password(password, stored, FAST).valid, stored
        assert verify_password(password, stored, FAST).needs_rehash
        assert not verify_password("letmein124", stored, FAST).valid


def test_bcrypt_reads_72_bytes_as_the_libraries_that_wrote_it() -> None:
    long = "x" * 80
    stored = bcrypt.hashpw(long.encode()[:72], bcrypt.gensalt(rounds=4)).decode()
    assert verify_password(long, stored, FAST).valid


def test_an_unknown_format_is_not_valid() -> None:
    assert not verify_password("pw", "md5$abc$def", FAST).valid
    assert not verify_password("pw", "$argon2id$garbage", FAST).valid


@given(st.text(min_size=0, max_size=40))
def test_rules_only_count_characters(password: str) -> None:
    """NIST SP 800-63B: a length, no composition rules."""
    length = len(normalize(password))
    expected = "missing" if not password else "too_short" if length < MIN_LENGTH else None
    assert problem(password) == expected


def test_long_passphrases_are_welcome_up_to_the_bound() -> None:
    assert problem("a" * MAX_LENGTH) is None
    assert problem("a" * (MAX_LENGTH + 1)) == "too_long"
    assert too_long("a" * (MAX_LENGTH + 1))
    assert not too_long("a" * MAX_LENGTH)
    assert problem(None) == "missing"
    assert problem("short", min_length=6) == "too_short"


@pytest.mark.parametrize("password", ["12345678", "aaaaaaaa", "password", "ÉÉÉÉÉÉÉÉ"])
def test_no_composition_rules(password: str) -> None:
    assert problem(password) is None
