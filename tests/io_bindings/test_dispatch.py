"""The runtime (``Auth``) on the engine's async driver: keyword filtering, sync and async
callbacks, events and logs, server-side session reads."""

import logging
from urllib.parse import urlencode

import anyio
import pytest

from io_bindings.anyio import Auth
from sansio_auth import AuthConfig, Request
from sansio_auth.providers import Credentials

ORIGIN = "http://localhost:8000"
PASSWORD = "correct horse battery staple"


def authorize(credentials):
    return {"id": "7", "name": "Ann"} if credentials.get("password") == PASSWORD else None


def make_auth(**config):
    return Auth(
        AuthConfig(
            secret="s" * 32,
            trust_host=True,
            providers=[Credentials(authorize=authorize)],
            **config,
        ),
        env={},
    )


async def sign_in(auth):
    csrf = await auth.respond(Request(method="GET", url=f"{ORIGIN}/auth/csrf"))
    token = csrf.json()["csrfToken"]
    cookie = "; ".join(f"{c.name}={c.value}" for c in csrf.cookies)
    body = urlencode({"csrfToken": token, "password": PASSWORD}).encode()
    return await auth.respond(
        Request(
            method="POST",
            url=f"{ORIGIN}/auth/callback/credentials",
            headers={"cookie": cookie, "content-type": "application/x-www-form-urlencoded"},
            body=body,
        )
    )


def browser_request(cookie):
    return Request(method="GET", url=f"{ORIGIN}/dashboard", headers={"cookie": cookie})


def run(coroutine_function, *args):
    return anyio.run(coroutine_function, *args)


@pytest.mark.parametrize("debug", [True, False])
def test_debug_traces_each_action_without_secrets(caplog, debug):
    caplog.set_level(logging.DEBUG, logger="sansio_auth")
    response = run(sign_in, make_auth(debug=debug))
    assert response.status == 302
    debug_lines = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    if debug:
        assert any("callback authorize" in line for line in debug_lines)
    else:
        assert debug_lines == []
    assert all(PASSWORD not in r.getMessage() for r in caplog.records)


def test_a_custom_debug_logger_turns_tracing_on():
    seen = []
    run(sign_in, make_auth(logger={"debug": lambda message: seen.append(message)}))
    assert "callback authorize" in seen


def test_an_event_handler_that_raises_is_logged_and_changes_nothing(caplog):
    async def boom(user):
        raise RuntimeError("handler bug")

    response = run(sign_in, make_auth(events={"sign_in": boom}))
    assert response.status == 302
    assert any(c.name == "authjs.session-token" for c in response.cookies)
    assert any("EventError" in r.getMessage() for r in caplog.records)


def test_callbacks_get_only_the_keywords_they_name():
    calls = []

    def jwt(token, trigger):
        calls.append(trigger)
        return token

    async def session(session):
        return {**session, "shaped": True}

    auth = make_auth(callbacks={"jwt": jwt, "session": session})
    response = run(sign_in, auth)
    cookie = "; ".join(f"{c.name}={c.value}" for c in response.cookies)

    async def read():
        return await auth.session(browser_request(cookie))

    assert run(read).data["shaped"] is True
    assert calls == ["signIn", None]


def test_a_server_side_session_read_returns_the_cookies_to_set():
    auth = make_auth(session={"update_age": 0})
    response = run(sign_in, auth)
    cookie = "; ".join(f"{c.name}={c.value}" for c in response.cookies)

    async def read():
        return await auth.session(browser_request(cookie))

    read_back = run(read)
    assert read_back.data["user"]["name"] == "Ann"
    assert [c.name for c in read_back.cookies] == ["authjs.session-token"]
    assert read_back.set_cookie_headers()[0].startswith("authjs.session-token=")


def test_a_signed_out_session_read_is_none_without_cookies():
    async def read():
        return await make_auth().session(browser_request(""))

    assert run(read).data is None
    assert run(read).cookies == ()


def test_a_custom_logger_that_raises_falls_back_to_the_default_log(caplog):
    def broken(code):
        raise RuntimeError("logger bug")

    auth = make_auth(logger={"warn": broken}, skip_csrf_check=lambda: None)
    run(auth.respond, Request(method="GET", url=f"{ORIGIN}/auth/csrf"))
    messages = [r.getMessage() for r in caplog.records]
    assert any("LoggerError" in m for m in messages)
    assert any("[auth][warn][csrf-disabled]" in m for m in messages)
