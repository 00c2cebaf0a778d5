"""The refresh decision as properties: clock x expiry x skew x failure."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sansio_auth.oauth.refresh import (
    REFUSED_MARK,
    refresh_decision,
    refresh_request,
    refreshed_state,
    refused_state,
    single_flight_key,
    state_error,
    usable_access_token,
)

NOW = 1_800_000_000
times = st.integers(NOW - 10_000, NOW + 10_000)
skews = st.integers(0, 3600)
refresh_tokens = st.one_of(st.none(), st.just(REFUSED_MARK), st.text(min_size=1, max_size=8))
expiries = st.one_of(st.none(), times)
failures = st.sampled_from(["none", "refused", "transport"])


def state(expires_at: int | None, refresh_token: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"access_token": "at"}
    if expires_at is not None:
        out["expires_at"] = expires_at
    if refresh_token is not None:
        out["refresh_token"] = refresh_token
    return out


@given(now=times, expires_at=expiries, skew=skews, refresh_token=refresh_tokens)
def test_the_decision(now, expires_at, skew, refresh_token):
    decision = refresh_decision(state(expires_at, refresh_token), now, skew)
    tracked = expires_at is not None and refresh_token is not None
    if not tracked or now < expires_at - skew:
        assert decision == "fresh"
    elif refresh_token != REFUSED_MARK:
        assert decision == "refresh"
    else:
        assert decision == ("expired" if now >= expires_at else "fresh")


@given(now=times, expires_at=expiries, skew=skews, refresh_token=refresh_tokens)
def test_a_token_is_usable_exactly_until_it_expires(now, expires_at, skew, refresh_token):
    token = usable_access_token(state(expires_at, refresh_token), now)
    assert token == (None if expires_at is not None and now >= expires_at else "at")


@given(now=times, expires_at=times, skew=skews, failure=failures, rotated=st.booleans())
def test_one_read_after_each_outcome(now, expires_at, skew, failure, rotated):
    """A due state, then the read's outcome: a refresh makes it fresh (and never regresses
    the refresh token), a refusal is never asked again, a transport failure changes nothing."""
    before = state(expires_at, "rt-1")
    if refresh_decision(before, now, skew) != "refresh":
        return
    if failure == "none":
        answer: dict[str, Any] = {"access_token": "at-2", "expires_at": now + 3600}
        if rotated:
            answer["refresh_token"] = "rt-2"
        after = refreshed_state(before, answer)
        assert after["refresh_token"] == ("rt-2" if rotated else "rt-1")
        assert refresh_decision(after, now, min(skew, 3599)) == "fresh"
        assert usable_access_token(after, now) == "at-2"
    elif failure == "refused":
        after = refused_state(before)
        for later in (now, now + 1, expires_at, expires_at + 10_000):
            assert refresh_decision(after, later, skew) != "refresh"  # never loops
        assert state_error(after, expires_at) == "RefreshAccessTokenError"
        assert state_error(after, expires_at - 1) is None
    else:
        after = before  # kept as it was
        assert usable_access_token(after, now) == ("at" if now < expires_at else None)
        assert state_error(after, now) is None


def test_the_refresh_request_and_its_key():
    request = refresh_request(
        "https://op/token", "rt", client_id="c", client_secret="s", auth_method="client_secret_post"
    )
    assert request.method == "POST"
    assert request.body == b"grant_type=refresh_token&refresh_token=rt&client_id=c&client_secret=s"
    key = single_flight_key("https://op/token", "rt")
    assert key == single_flight_key("https://op/token", "rt")
    assert key != single_flight_key("https://op/token", "rt2")
    assert len(key) == len("refresh:") + 64  # a sha256, not the token


def test_a_refresh_without_expiry_never_expires():
    after = refreshed_state(state(NOW, "rt"), {"access_token": "at-2"})
    assert "expires_at" in after
    assert after["expires_at"] is None
    assert refresh_decision(after, NOW + 10**9, 60) == "fresh"
