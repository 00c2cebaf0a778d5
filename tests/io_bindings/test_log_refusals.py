"""The default log: a refusal any client can cause is one line; a server fault keeps its
traceback; ``debug`` shows every traceback."""

import logging

import anyio
import pytest

from io_bindings.anyio import Auth
from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig, Request, jwt
from sansio_auth.providers import Credentials

ORIGIN = "http://localhost:8000"


class DatabaseDown(RuntimeError):
    pass


class DownAdapter(MemoryAdapter):
    def get_session_and_user(self, session_token):
        raise DatabaseDown("the database is down")


def jwt_auth(debug=False, **options):
    config = AuthConfig(
        secret="s" * 32,
        trust_host=True,
        debug=debug,
        providers=[Credentials(authorize=lambda credentials: None)],
        **options,
    )
    return Auth(config, env={})


def session_errors(auth, cookie, caplog):
    request = Request(method="GET", url=f"{ORIGIN}/auth/session", headers={"cookie": cookie})
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="sansio_auth"):
        response = anyio.run(auth.respond, request)
    assert response.status == 200
    assert response.json() is None
    return [r for r in caplog.records if r.levelno == logging.ERROR]


@pytest.mark.parametrize(
    "cookie",
    [
        "authjs.session-token=garbage",
        "authjs.session-token=eyJhbGciOiJkaXIifQ..AAAA.AAAA.AAAA",
    ],
)
def test_a_garbage_session_cookie_is_one_line_without_traceback(caplog, cookie):
    [record] = session_errors(jwt_auth(), cookie, caplog)
    assert record.getMessage().startswith("[auth][error] JWTSessionError: ")
    assert record.exc_info is None
    assert "Traceback" not in caplog.text
    assert "\n" not in caplog.text.strip()


def test_a_tampered_session_cookie_is_one_line_without_traceback(caplog):
    auth = jwt_auth()
    token = auth_session_token(auth)
    tampered = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
    [record] = session_errors(auth, f"authjs.session-token={tampered}", caplog)
    assert "JWTSessionError" in record.getMessage()
    assert "Traceback" not in caplog.text


def test_an_expired_session_cookie_is_one_line_without_traceback(caplog):
    auth = jwt_auth()
    expired = auth_session_token(auth, now=1_000_000_000)
    [record] = session_errors(auth, f"authjs.session-token={expired}", caplog)
    assert "JWTSessionError" in record.getMessage()
    assert "expired" in record.getMessage()
    assert "Traceback" not in caplog.text


def test_a_bad_csrf_token_is_one_line_without_traceback(caplog):
    request = Request(
        method="POST",
        url=f"{ORIGIN}/auth/signout",
        headers={
            "cookie": "authjs.csrf-token=abc|def",
            "content-type": "application/x-www-form-urlencoded",
        },
        body=b"csrfToken=abc",
    )
    with caplog.at_level(logging.ERROR, logger="sansio_auth"):
        response = anyio.run(jwt_auth().respond, request)
    assert response.status == 302
    [record] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert record.getMessage().startswith("[auth][error] MissingCSRF: ")
    assert "Traceback" not in caplog.text


def test_under_debug_a_refusal_keeps_its_traceback(caplog):
    [record] = session_errors(jwt_auth(debug=True), "authjs.session-token=garbage", caplog)
    assert record.exc_info is not None
    assert "Traceback" in caplog.text


def test_a_failing_adapter_still_logs_its_traceback(caplog):
    config = AuthConfig(secret="s" * 32, trust_host=True, adapter=DownAdapter(), providers=[])
    [record] = session_errors(Auth(config, env={}), "authjs.session-token=abc", caplog)
    assert "SessionTokenError" in record.getMessage()
    assert "Traceback" in caplog.text
    assert "DatabaseDown: the database is down" in caplog.text


def test_a_failing_jwt_callback_on_a_session_read_logs_its_traceback(caplog):
    def failing_jwt(token):
        raise KeyError("a bug in the callback")

    auth = jwt_auth(callbacks={"jwt": failing_jwt})
    cookie = f"authjs.session-token={auth_session_token(auth)}"
    [record] = session_errors(auth, cookie, caplog)
    assert "JWTSessionError" in record.getMessage()
    assert "Traceback" in caplog.text
    assert "a bug in the callback" in caplog.text


def auth_session_token(auth, now=2e9):
    return jwt.encode(
        {"sub": "1"},
        auth.settings.secrets,
        "authjs.session-token",
        now=now,
        entropy=lambda n: b"\x01" * n,
    )
