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
    LOCKED_STEP,
    RECOVERY_CODES,
    SINGLE_FACTOR,
    Next,
    Pending,
    clean_recovery_code,
    code_hashes,
    covers,
    decide,
    failure_series,
    is_locked,
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


TYPES = st.sampled_from(["password", "email", "oauth", "oidc", "webauthn", "credentials"])


@given(provider=st.text(max_size=8), account_type=TYPES)
def test_by_default_every_single_factor_way_in_asks_for_the_second_factor(
    provider: str, account_type: str
) -> None:
    """A password and an e-mailed link are one factor each; a passkey is two; a provider
    authenticates its users its own way."""
    covered = covers(SINGLE_FACTOR, provider, account_type)
    assert covered is (account_type in ("password", "email"))
    assert covers("all", provider, account_type)


RECORDS = st.fixed_dictionaries(
    {
        "enabled_at": st.integers(min_value=0, max_value=2**40),
        "totp_last_step": st.none() | st.integers(min_value=0, max_value=2**40),
        "recovery_codes": st.lists(st.text(min_size=1, max_size=4), max_size=10),
    }
)


@given(record=RECORDS, step=st.integers(min_value=1, max_value=2**20), used=st.integers(0, 9))
def test_a_right_code_starts_a_new_series_of_wrong_ones(record: dict, step: int, used: int) -> None:
    """Wrong codes are counted per series; a right app code (a later step) or a recovery code
    used (one fewer) starts another, and so does setting the factor up again."""
    series = failure_series("u1", record)
    assert failure_series("u1", dict(record)) == series
    later = {**record, "totp_last_step": (record["totp_last_step"] or 0) + step}
    assert failure_series("u1", later) != series
    if record["recovery_codes"]:
        fewer = {
            **record,
            "recovery_codes": record["recovery_codes"][
                : min(used, len(record["recovery_codes"]) - 1)
            ],
        }
        assert failure_series("u1", fewer) != series
    again = {**record, "enabled_at": record["enabled_at"] + step}
    assert failure_series("u1", again) != series
    assert failure_series("u2", record) != series


@given(step=st.none() | st.integers(min_value=0, max_value=2**63 - 1))
def test_an_app_is_locked_only_past_every_real_step(step: int | None) -> None:
    assert is_locked({"totp_last_step": step}) is (step is not None and step >= LOCKED_STEP)
    assert not is_locked(None)
    assert LOCKED_STEP > 2**40  # no real 30-second step reaches it


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
