"""Back-channel logout through the engine, when the store of the marks fails (the fleet's
Redis stopped while PostgreSQL answers): database sessions are still ended (the replay check
is skipped, logged); JWT sessions cannot be, and the provider gets a ``400``, never the error
page's redirect.

Found by the cluster soak: the OP's logout tokens got ``302 Found`` while Redis was down.
"""

from __future__ import annotations

from typing import Any

import pytest

from sansio_auth import AuthConfig
from sansio_auth.testing import Browser, MemoryOP
from tests.sansio_auth.adapter_faults import FaultyAdapter
from tests.sansio_auth.driver import SECRET

EVENT = "http://schemas.openid.net/event/backchannel-logout"


def signed_in(strategy: str) -> tuple[Browser, MemoryOP, FaultyAdapter]:
    op = MemoryOP()
    op.metadata["backchannel_logout_supported"] = True
    op.claims["sid"] = "op-session-1"  # the provider session, in the ID token
    adapter = FaultyAdapter()
    session: dict[str, Any] = {"strategy": strategy}
    if strategy == "jwt":
        session |= {"revocation": True, "revocation_cache_ttl": 0}
    config = AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter,
        session=session,
        providers=[op.provider(backchannel_logout=True)],
    )
    browser = Browser(config, op=op)
    browser.sign_in("op")
    assert browser.session() is not None
    return browser, op, adapter


def logout(browser: Browser, op: MemoryOP, jti: str = "j-1", **who: str) -> Any:
    claims = {
        "iss": op.issuer,
        "aud": op.client_id,
        "iat": int(browser.clock.now),
        "jti": jti,
        "events": {EVENT: {}},
        **(who or {"sub": "alice-sub"}),
    }
    token = op.sign(claims, {"alg": "RS256", "kid": op.signing_kid, "typ": "logout+jwt"})
    path = f"{browser.base}/backchannel-logout/op"
    return browser.engine.handle(browser.build("POST", path, form={"logout_token": token}))


def test_database_sessions_are_ended_while_the_marks_cannot_be_read():
    browser, op, adapter = signed_in("database")
    adapter.fail_on("get_sessions_not_before")
    response = browser.performer.run(logout(browser, op))
    assert response.status == 200
    assert browser.session() is None  # ended all the same
    assert "AdapterError" in browser.performer.log_codes("error")


@pytest.mark.parametrize("failing", ["get_sessions_not_before", "set_sessions_not_before"])
def test_a_jwt_session_that_cannot_be_ended_is_a_400_for_the_provider(failing):
    browser, op, adapter = signed_in("jwt")
    adapter.fail_on(failing, nth=1 if failing == "get_sessions_not_before" else 2)
    response = browser.performer.run(logout(browser, op))
    if failing == "get_sessions_not_before":  # only the replay check failed: logged, ended
        assert response.status == 200
        assert browser.session() is None
        return
    assert response.status == 400  # the mark of the logout could not be written
    assert response.json()["error"] == "temporarily_unavailable"
    assert response.location is None
    assert "AdapterError" in browser.performer.log_codes("error")
    assert browser.session() is not None  # not ended: the provider may send it again


def test_a_logout_token_is_still_taken_once():
    browser, op, _ = signed_in("database")
    assert browser.performer.run(logout(browser, op)).status == 200
    again = browser.performer.run(logout(browser, op))
    assert again.status == 400
    assert again.json()["error"] == "invalid_request"


def test_a_jwt_session_of_a_provider_session_is_ended_without_the_users_store():
    """A logout token naming the provider session (``sid``) needs only the marks: the users'
    store may be down (the fleet's PostgreSQL restarting while Redis answers)."""
    browser, op, adapter = signed_in("jwt")
    adapter.fail_on("get_user_by_account")
    looked_up = len(adapter.called("get_user_by_account"))
    response = browser.performer.run(logout(browser, op, sid="op-session-1", sub="alice-sub"))
    assert response.status == 200
    assert browser.session() is None
    assert len(adapter.called("get_user_by_account")) == looked_up
