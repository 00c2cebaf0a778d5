"""The kit's Browser: sign-ins followed through the engine and the OP, a fixed clock,
seeded entropy, sync and async callbacks."""

from typing import Any

import pytest

from sansio_auth import AuthConfig
from sansio_auth.providers import Credentials
from sansio_auth.testing import ANN, ORIGIN, SECRET, Browser, MemoryOP, authorize_from


def config(*providers: Any, **options: Any) -> AuthConfig:
    return AuthConfig(secret=SECRET, trust_host=True, providers=list(providers), **options)


def credentials(**options: Any) -> Credentials:
    return Credentials(authorize=authorize_from([ANN]), **options)


def test_credentials_sign_in_session_and_sign_out():
    browser = Browser(config(credentials()))
    assert browser.session() is None
    response = browser.sign_in("credentials", username="ann", password="pw")
    assert (response.status, browser.url) == (302, ORIGIN)
    assert browser.session()["user"] == {"name": "Ann", "email": "ann@example.com"}
    browser.sign_out(callbackUrl="/bye")
    assert browser.url == f"{ORIGIN}/bye"
    assert browser.session() is None


def test_a_refused_sign_in_is_followed_to_the_sign_in_page():
    browser = Browser(config(credentials()))
    response = browser.sign_in("credentials", username="ann", password="nope")
    assert response.status == 200
    assert "text/html" in dict(response.header_list())["content-type"]
    assert browser.url == f"{ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials"
    assert browser.session() is None
    assert [r.status for _, r in browser.history[1:3]] == [302, 200]


def test_oidc_sign_in_goes_through_the_op_as_the_chosen_user():
    op = MemoryOP()
    op.users["bob"] = {"sub": "bob-sub", "name": "Bob", "email": "bob@example.com"}
    browser = Browser(config(op.provider(), events={"sign_in": lambda: None}), op=op)
    browser.sign_in("op", as_user="bob", callbackUrl="/home")
    assert browser.url == f"{ORIGIN}/home"
    assert browser.session()["user"] == {"name": "Bob", "email": "bob@example.com"}
    assert op.count("token") == 1
    assert browser.performer.emitted("sign_in")[0]["account"]["provider_account_id"] == "bob-sub"


def test_the_clock_expires_the_session_and_update_age_reissues_it():
    browser = Browser(config(credentials(), session={"max_age": 3600, "update_age": 600}))
    browser.sign_in("credentials", username="ann", password="pw")
    first = browser.cookies()["authjs.session-token"]
    browser.advance(601)
    assert browser.session() is not None
    assert browser.cookies()["authjs.session-token"] != first  # re-issued
    browser.advance(3601)
    assert browser.session() is None
    with pytest.raises(ValueError, match="backwards"):
        browser.advance(-1)


def test_the_same_seed_gives_the_same_bytes_and_another_seed_does_not():
    def run(seed: int) -> list[Any]:
        op = MemoryOP()
        browser = Browser(config(credentials(), op.provider()), op=op, seed=seed)
        browser.sign_in("credentials", username="ann", password="pw")
        browser.sign_out()
        browser.sign_in("op")
        return [(r.status, r.header_list(), r.body) for _, r in browser.history]

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_async_callbacks_run_and_a_suspending_one_fails_its_action():
    async def authorize(credentials: Any) -> Any:
        return {"id": "1", "name": credentials["username"]}

    async def jwt(token: Any, user: Any = None) -> Any:
        return {**token, "async": True}

    async def session(session: Any, token: Any) -> Any:
        return {**session, "async": token["async"]}

    browser = Browser(
        config(Credentials(authorize=authorize), callbacks={"jwt": jwt, "session": session})
    )
    browser.sign_in("credentials", username="zoe")
    assert browser.session()["async"] is True

    class Suspend:
        def __await__(self) -> Any:
            yield

    async def waits(credentials: Any) -> Any:
        await Suspend()
        return {"id": "1"}

    blocked = Browser(config(Credentials(authorize=waits)))
    blocked.sign_in("credentials", username="zoe")
    assert blocked.url == f"{ORIGIN}/auth/error?error=Configuration"
    assert blocked.session() is None
    [error] = [entry for entry in blocked.performer.logs if entry.level == "error"]
    assert isinstance(error.error.__cause__, RuntimeError)
    assert "the in-memory performer has no event loop" in error.message


def test_another_browser_shares_the_engine_but_not_the_cookies():
    browser = Browser(config(credentials()))
    browser.sign_in("credentials", username="ann", password="pw")
    other = browser.another()
    assert other.session() is None
    assert other.engine is browser.engine
    assert other.clock is browser.clock


def test_bad_uses_say_what_is_wrong():
    browser = Browser(config(credentials()))
    with pytest.raises(ValueError, match="no provider 'github'"):
        browser.sign_in("github")
    with pytest.raises(ValueError, match="not an auth route"):
        browser.get("/elsewhere")
