"""AuthStateMachine: runs on a credentials + OIDC configuration, and catches what it must."""

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from sansio_auth import AuthConfig, Cookie, CookieOptions, Response
from sansio_auth.providers import Credentials
from sansio_auth.testing import SECRET, AuthStateMachine, MemoryOP, authorize_from

QUICK = settings(
    max_examples=max(10, settings.default.max_examples // 5),
    stateful_step_count=12,
    deadline=None,
    database=None,
)

ACCOUNTS = [
    {"username": "ann", "password": "pw", "id": "1", "name": "Ann", "email": "ann@example.com"},
    {"username": "bo", "password": "s3", "id": "2", "name": "Bo", "email": "bo@example.com"},
]


class CredentialsAndOIDC(AuthStateMachine):
    """A user's configuration: their own ``authorize``, ``sign_in``, ``jwt`` and ``session``."""

    accounts = ACCOUNTS

    def config(self, op: MemoryOP) -> AuthConfig:
        return AuthConfig(
            secret=SECRET,
            trust_host=True,
            session={"max_age": 7 * 86400, "update_age": 86400},
            callbacks=self.callbacks(),
            providers=[Credentials(authorize=authorize_from(self.accounts)), op.provider()],
        )

    def callbacks(self) -> dict[str, Any]:
        def sign_in(user: Any, account: Any) -> bool:
            return account is None or account["provider"] != "op" or bool(user.get("email"))

        def jwt(token: Any, user: Any = None) -> Any:
            return {**token, "role": "admin" if user and user.get("id") == "1" else "user"}

        async def session(session: Any, token: Any) -> Any:
            return {**session, "role": token.get("role")}

        return {"sign_in": sign_in, "jwt": jwt, "session": session}


def test_the_machine_runs_on_credentials_and_oidc():
    run_state_machine_as_test(CredentialsAndOIDC, settings=QUICK)


def test_the_default_configuration_runs():
    run_state_machine_as_test(AuthStateMachine, settings=QUICK)


class StaleSession(CredentialsAndOIDC):
    """A buggy ``session`` callback: it says the session expired in 2000."""

    def callbacks(self) -> dict[str, Any]:
        stale = {"expires": "2000-01-01T00:00:00Z"}
        return {**super().callbacks(), "session": lambda session: {**session, **stale}}


def test_a_buggy_session_callback_is_caught():
    with pytest.raises(AssertionError, match="an expired session was read"):
        run_state_machine_as_test(StaleSession, settings=settings(QUICK, phases=[Phase.generate]))


def test_a_refusal_that_sets_a_session_cookie_is_caught():
    machine = AuthStateMachine()
    cookie = Cookie(name="authjs.session-token", value="x", options=CookieOptions())
    bad = Response(
        status=302,
        headers=(("location", "http://localhost:3000/auth/error?error=AccessDenied"),),
        cookies=(cookie,),
    )

    def move() -> Response:
        machine.browser.history.append((None, bad))  # type: ignore[arg-type]
        machine.browser.url = bad.location or ""
        return bad

    with pytest.raises(AssertionError, match="refused, yet set"):
        machine.attempt(move)
    machine.teardown()


def test_the_machine_sees_the_clock():
    machine = CredentialsAndOIDC()
    machine.browser.sign_in("credentials", username="ann", password="pw")
    expires = datetime.fromisoformat(machine.browser.session()["expires"])
    assert expires == datetime.fromtimestamp(machine.browser.clock.now + 7 * 86400, UTC)


def test_the_machine_signs_in_at_the_op_with_a_drawn_profile_and_signs_out():
    machine = CredentialsAndOIDC()
    machine.sign_in_at_the_op({"sub": "s-1", "name": "Cy", "email": "cy@example.com"})
    assert machine.browser.session()["role"] == "user"
    machine.sign_in_at_a_misbehaving_op("wrong-nonce")
    machine.sign_out()
    machine.sign_in_at_the_op({"sub": "s-2"})  # no e-mail: the user's sign_in refuses
    assert machine.browser.session() is None
    machine.teardown()
