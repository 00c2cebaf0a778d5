"""Logout token claims (Back-Channel Logout 1.0 §2.6), one refusal at a time."""

from __future__ import annotations

from typing import Any

import pytest

from sansio_auth.oauth.logout_token import EVENT, LogoutTokenError, check_logout_claims

NOW = 1_800_000_000
ISSUER, CLIENT = "https://op.example", "client-1"


def claims(**changes: Any) -> dict[str, Any]:
    base = {
        "iss": ISSUER,
        "aud": CLIENT,
        "iat": NOW,
        "exp": NOW + 120,
        "jti": "j-1",
        "sub": "alice",
        "sid": "s-1",
        "events": {EVENT: {}},
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def check(**changes: Any) -> Any:
    return check_logout_claims(claims(**changes), issuer=ISSUER, client_id=CLIENT, now=NOW)


def test_a_valid_token() -> None:
    facts = check()
    assert (facts.jti, facts.sub, facts.sid) == ("j-1", "alice", "s-1")
    assert check(sub=None).sub is None  # a sid alone will do
    assert check(sid=None, aud=[CLIENT, "other"], exp=None).sid is None  # and a sub alone


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"iss": "https://evil.example"}, "iss"),
        ({"aud": "other"}, "aud"),
        ({"aud": None}, "aud"),
        ({"iat": None}, "iat"),
        ({"iat": NOW + 31}, "iat"),
        ({"iat": NOW - 121}, "iat"),
        ({"iat": True}, "iat"),
        ({"exp": NOW - 31}, "exp"),
        ({"exp": "later"}, "exp"),
        ({"jti": None}, "jti"),
        ({"jti": ""}, "jti"),
        ({"events": None}, "events"),
        ({"events": {EVENT: "yes"}}, "events"),
        ({"events": {"urn:other": {}}}, "events"),
        ({"nonce": "n-1"}, "nonce"),
        ({"sub": None, "sid": None}, "neither"),
        ({"sub": 7}, "sub"),
        ({"sid": ""}, "sid"),
    ],
)
def test_refusals(changes: dict[str, Any], reason: str) -> None:
    with pytest.raises(LogoutTokenError, match=reason):
        check(**changes)
