"""An ID token returned by a refresh grant is validated like the first one (signature,
``iss``, ``aud``, times) and must go on from it (OpenID Connect Core §12.2: the same ``sub``,
``aud``, ``auth_time``; no other ``nonce``). One that does not fails the refresh: the old
tokens stay until they expire, nothing of the answer is kept."""

from __future__ import annotations

from typing import Any

import pytest

from io_bindings.db.memory import MemoryAdapter
from sansio_auth.oauth.id_token import IDTokenError
from sansio_auth.oauth.refresh import check_refreshed_claims, reference_claims
from tests.sansio_auth.oauth.fake_op import FakeOP
from tests.sansio_auth.oauth.test_refresh_flow import (
    account_row,
    db_pair,
    refresh_requests,
    session_token,
    signed_in,
)

REFUSALS: dict[str, dict[str, Any]] = {
    "another user": {"sub": "mallory-sub"},
    "another audience": {"aud": "someone-else"},
    "another issuer": {"iss": "https://evil.example"},
    "expired": {"exp": 1},
    "another nonce": {"nonce": "not-the-original"},
    "another auth_time": {"auth_time": 1},
}


def refreshed_jwt(op: FakeOP, **claims: Any) -> tuple[Any, dict[str, Any]]:
    """Signed in (JWT); a session read that refreshes, the OP's ID token with ``claims``."""
    pair = signed_in(op, config={"callbacks": {"jwt": lambda token: token}})
    op.refresh_id_token, op.refresh_claims = True, claims
    pair.clock.advance(3600 - 30)
    return pair, pair.browser.session()


def test_a_valid_refreshed_id_token_is_kept() -> None:
    op = FakeOP()
    pair, session = refreshed_jwt(op)
    assert "error" not in session
    state = session_token(pair)["oauth"]
    assert state["access_token"] == "at-2-alice"
    assert state["id_token"].count(".") == 2  # the refreshed one, validated
    assert "RefreshAccessTokenError" not in pair.performer.log_codes("error")
    pair.clock.advance(3600)  # and the next refresh checks against it
    assert "error" not in pair.browser.session()
    assert session_token(pair)["oauth"]["access_token"] == "at-3-alice"


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_refreshed_id_token_that_does_not_go_on_fails_the_refresh(case: str) -> None:
    op = FakeOP()
    if case in ("another nonce", "another auth_time"):  # needs the original ID token kept
        op.claims = {"auth_time": 1_799_999_000}
        pair = signed_in(op, end_session=True)
        op.claims = {}
        op.refresh_id_token, op.refresh_claims = True, REFUSALS[case]
        pair.clock.advance(3600 - 30)
        pair.browser.session()
    else:
        pair, _ = refreshed_jwt(op, **REFUSALS[case])
    assert len(refresh_requests(op)) == 1
    assert "RefreshAccessTokenError" in pair.performer.log_codes("error")
    state = session_token(pair)["oauth"]
    assert state["access_token"] == "at-1-alice"  # nothing of the answer kept
    assert state["refresh_token"] == "rt-1"


def test_a_bad_signature_fails_the_refresh() -> None:
    op = FakeOP()
    pair = signed_in(op)
    op.refresh_id_token = True
    op.signing = "bad-signature"
    pair.clock.advance(3600 - 30)
    pair.browser.session()
    assert session_token(pair)["oauth"]["access_token"] == "at-1-alice"


def test_database_sessions_check_against_the_account_row() -> None:
    adapter = MemoryAdapter()
    op = FakeOP(rotate_refresh_tokens=False)  # the refused answer's refresh token stays good
    pair = db_pair(op, adapter)
    original = account_row(adapter)["id_token"]
    op.refresh_id_token, op.refresh_claims = True, {"sub": "mallory-sub"}
    pair.clock.advance(3600 - 30)
    pair.browser.session()
    row = account_row(adapter)
    assert (row["access_token"], row["id_token"]) == ("at-1-alice", original)
    op.refresh_claims = {}
    pair.browser.session()
    row = account_row(adapter)
    assert row["access_token"] != "at-1-alice"
    assert row["id_token"] != original


def test_a_plain_oauth_provider_keeps_no_id_token_from_a_refresh() -> None:
    op = FakeOP()
    pair = signed_in(op, type="oauth", refresh=True, userinfo=op.endpoint("userinfo"))
    op.refresh_id_token = True
    pair.clock.advance(3600 - 30)
    pair.browser.session()
    state = session_token(pair)["oauth"]
    assert state["access_token"] == "at-2-alice"
    assert "id_token" not in state


def test_the_reference_claims() -> None:
    assert reference_claims({"sub": "a"}) == {"sub": "a"}
    assert reference_claims({}) == {}
    assert reference_claims({"id_token": "not.a-jwt"}) == {}
    check_refreshed_claims({"sub": "a", "nonce": "n"}, {"sub": "a"})  # no original to compare
    with pytest.raises(IDTokenError, match="nonce"):
        check_refreshed_claims({"iss": "i", "nonce": "n"}, {"iss": "i"})
    check_refreshed_claims({"aud": ["c"], "iss": "i"}, {"aud": "c", "iss": "i"})
