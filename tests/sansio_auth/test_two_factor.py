"""Two-factor's pure decisions: the second-factor table, recovery codes (single use, stored
keyed-hashed, surviving a secret rotation), the sealed TOTP secret, the pending sign-in's
expiry and tampering, the trust cookie."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import jwt
from sansio_auth.oauth.checks import unb64url
from sansio_auth.testing import seeded_entropy
from sansio_auth.two_factor import (
    RECOVERY_CODES,
    Next,
    Pending,
    clean_recovery_code,
    code_hashes,
    covers,
    decide,
    new_recovery_codes,
    open_secret,
    pending_payload,
    read_pending,
    seal_secret,
    stored_codes,
    trust_payload,
    trusts,
)

OLD, NEW = "o" * 40, "n" * 40


@given(st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_the_second_factor_table(
    covered: bool, enrolled: bool, required: bool, trusted: bool
) -> None:
    step = decide(covered=covered, enrolled=enrolled, required=required, trusted=trusted)
    if not covered:
        assert step is Next.SIGN_IN
    elif enrolled:
        assert step is (Next.SIGN_IN if trusted else Next.CHALLENGE)
    else:  # a trust cookie never stands in for a second factor the user does not have
        assert step is (Next.ENROL if required else Next.SIGN_IN)


def test_covers() -> None:
    assert covers(("password",), "password")
    assert not covers(("password",), "github")
    assert covers("all", "github")


@given(st.integers(min_value=0, max_value=2**32))
def test_recovery_codes_are_distinct_and_readable(seed: int) -> None:
    codes = new_recovery_codes(seeded_entropy(seed))
    assert len(set(codes)) == len(codes) == RECOVERY_CODES
    for code in codes:
        assert len(code) == 11
        assert code[5] == "-"
        assert clean_recovery_code(code.upper().replace("-", " ")) == code.replace("-", "")


@given(st.integers(min_value=0, max_value=2**32), st.data())
def test_a_recovery_code_is_used_once(seed: int, data: st.DataObject) -> None:
    """The store keeps the codes' hashes; using one removes it (as the adapters do)."""
    codes = new_recovery_codes(seeded_entropy(seed))
    stored = stored_codes(codes, NEW)
    assert not set(codes) & set(stored)  # never in clear
    picks = data.draw(st.lists(st.sampled_from(codes), min_size=1, max_size=15))
    used: set[str] = set()
    for code in picks:
        hashed = code_hashes(clean_recovery_code(code) or "", (NEW,))[0]
        accepted = hashed in stored
        if accepted:
            stored.remove(hashed)
        assert accepted == (code not in used)
        used.add(code)


def test_codes_made_before_a_secret_rotation_still_match() -> None:
    code = clean_recovery_code(new_recovery_codes(seeded_entropy(1))[0])
    assert code is not None
    stored = stored_codes([code], OLD)[0]
    assert stored in code_hashes(code, (NEW, OLD))
    assert stored not in code_hashes(code, (NEW,))


def test_the_totp_secret_is_sealed_and_opens_after_a_rotation() -> None:
    sealed = seal_secret("JBSWY3DPEHPK3PXP", (OLD,), b"\1" * 12)
    assert "JBSWY3DPEHPK3PXP" not in sealed
    assert open_secret(sealed, (NEW, OLD)) == "JBSWY3DPEHPK3PXP"
    with pytest.raises(ValueError, match="rotated out"):
        open_secret(sealed, (NEW,))


@given(st.integers(min_value=0, max_value=200), st.integers(min_value=0, max_value=255))
def test_an_altered_sealed_secret_never_opens(position: int, flip: int) -> None:
    sealed = seal_secret("JBSWY3DPEHPK3PXP", (NEW,), b"\2" * 12)
    chars = list(sealed)
    index = position % len(chars)
    replacement = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."[flip % 65]
    if chars[index] == replacement:
        return
    chars[index] = replacement
    altered = "".join(chars)
    try:
        open_secret(altered, (NEW,))
    except Exception:
        return
    # only another spelling of the very same bytes may open (base64's unused low bits)
    head, _, data = altered.rpartition(".")
    assert head == sealed.rpartition(".")[0]
    assert unb64url(data) == unb64url(sealed.rpartition(".")[2])


PENDING = Pending(user_id="u1", account={"provider": "password", "type": "password",
                  "provider_account_id": "u1", "user_id": "u1"})  # fmt: skip


@given(st.integers(min_value=0, max_value=600), st.integers(min_value=1, max_value=600))
def test_the_pending_sign_in_expires(elapsed: int, max_age: int) -> None:
    token = jwt.encode(pending_payload(PENDING), (NEW,), "authjs.two-factor", now=1000.0,
                       entropy=seeded_entropy(0), max_age=max_age)  # fmt: skip
    later = 1000.0 + elapsed
    if elapsed < max_age:
        assert read_pending(jwt.decode(token, (NEW,), "authjs.two-factor", now=later)) == PENDING
    elif elapsed > max_age + jwt.CLOCK_TOLERANCE:
        with pytest.raises(jwt.InvalidToken):
            jwt.decode(token, (NEW,), "authjs.two-factor", now=later)


@given(st.integers(min_value=0, max_value=10_000), st.sampled_from("AbZ09-_"))
def test_an_altered_pending_sign_in_is_refused(position: int, char: str) -> None:
    token = jwt.encode(pending_payload(PENDING), (NEW,), "authjs.two-factor", now=0.0,
                       entropy=seeded_entropy(0), max_age=300)  # fmt: skip
    index = position % len(token)
    if token[index] in (char, "."):
        return
    altered = token[:index] + char + token[index + 1 :]
    with pytest.raises(jwt.InvalidToken):
        jwt.decode(altered, (NEW,), "authjs.two-factor", now=0.0)


def test_a_pending_sign_in_of_another_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="malformed"):
        read_pending({"pending": {"user_id": 3}})


def test_trust() -> None:
    claims = trust_payload("u1", 1234)
    assert trusts(claims, "u1", 1234)
    assert not trusts(claims, "u2", 1234)
    assert not trusts(claims, "u1", 1235)  # set up again since: the cookie is void
    assert not trusts(claims, "u1", None)
    assert not trusts(None, "u1", 1234)
