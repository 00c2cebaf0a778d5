"""The default log: a refusal any client can cause is one warning line; a server fault is an
error with its traceback; ``debug`` shows every traceback."""

import logging

import anyio
import pytest

from io_bindings._driver_io import write_log
from io_bindings.anyio import Auth
from io_bindings.db.memory import MemoryAdapter
from io_bindings.translate import server_error
from sansio_auth import AuthConfig, Request, jwt
from sansio_auth.events import Log
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


def session_errors(auth, cookie, caplog, level=logging.ERROR):
    """The records of ``level`` a session read with ``cookie`` logs (none of another level
    above debug but the start-up warnings)."""
    request = Request(method="GET", url=f"{ORIGIN}/auth/session", headers={"cookie": cookie})
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sansio_auth"):
        response = anyio.run(auth.respond, request)
    assert response.status == 200
    assert response.json() is None
    others = {logging.ERROR, logging.WARNING} - {level}
    assert not [r for r in caplog.records if r.levelno in others and "[auth][warn][" not in r.msg]
    return [r for r in caplog.records if r.levelno == level]


def session_refusals(auth, cookie, caplog):
    return session_errors(auth, cookie, caplog, level=logging.WARNING)


@pytest.mark.parametrize(
    "cookie",
    [
        "authjs.session-token=garbage",
        "authjs.session-token=eyJhbGciOiJkaXIifQ..AAAA.AAAA.AAAA",
    ],
)
def test_a_garbage_session_cookie_is_one_line_without_traceback(caplog, cookie):
    [record] = session_refusals(jwt_auth(), cookie, caplog)
    assert record.getMessage().startswith("[auth][warn] JWTSessionError: ")
    assert record.exc_info is None
    assert "Traceback" not in caplog.text
    assert "\n" not in caplog.text.strip()


def test_a_tampered_session_cookie_is_one_line_without_traceback(caplog):
    auth = jwt_auth()
    token = auth_session_token(auth)
    tampered = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
    [record] = session_refusals(auth, f"authjs.session-token={tampered}", caplog)
    assert "JWTSessionError" in record.getMessage()
    assert "Traceback" not in caplog.text


def test_an_expired_session_cookie_is_one_line_without_traceback(caplog):
    auth = jwt_auth()
    expired = auth_session_token(auth, now=1_000_000_000)
    [record] = session_refusals(auth, f"authjs.session-token={expired}", caplog)
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
    with caplog.at_level(logging.WARNING, logger="sansio_auth"):
        response = anyio.run(jwt_auth().respond, request)
    assert response.status == 302
    assert not [r for r in caplog.records if r.levelno == logging.ERROR]
    [record] = [r for r in caplog.records if r.getMessage().startswith("[auth][warn] ")]
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith("[auth][warn] MissingCSRF: ")
    assert "Traceback" not in caplog.text


def test_under_debug_a_refusal_keeps_its_traceback(caplog):
    [record] = session_refusals(jwt_auth(debug=True), "authjs.session-token=garbage", caplog)
    assert "Traceback" in record.getMessage()
    assert "InvalidToken: not a compact JWE" in record.getMessage()


FORGED = "x\r\n[auth][error] FORGED\n\u2028[auth][error] FORGED"


@pytest.mark.parametrize("debug", [False, True])
def test_no_text_can_forge_a_log_line(caplog, debug):
    """The writer escapes every line it writes, the messages in a traceback included."""
    try:
        try:
            raise ValueError(FORGED)
        except ValueError as err:
            raise RuntimeError(FORGED) from err
    except RuntimeError as err:
        error = err
    entries = [
        Log(level="error", code="Forged", message=FORGED, error=error),
        Log(level="warn", code="forged", message=FORGED),
        Log(level="debug", code="forged", message=FORGED, metadata={"x": FORGED}),
    ]
    with caplog.at_level(logging.DEBUG, logger="sansio_auth"):
        for entry in entries:
            write_log(entry, debug=debug)
    assert FORGED.count("FORGED") * 3 <= caplog.text.count("FORGED")
    lines = [line for record in caplog.records for line in record.getMessage().splitlines()]
    assert not [line for line in lines if line.startswith("[auth][error] FORGED")]
    starts = ("[auth]", "  ", "Traceback", "ValueError: x", "RuntimeError: x", "The above")
    assert all(line.startswith(starts) for line in lines if line), lines
    assert "Traceback" in caplog.text  # a RuntimeError is the engine's fault


def test_a_failing_server_is_logged_escaped(caplog):
    """The binding's last resort (an exception escaping the engine) escapes the path."""
    with caplog.at_level(logging.ERROR, logger="sansio_auth"):
        try:
            raise RuntimeError(FORGED)
        except RuntimeError:
            response = server_error("/auth/x\r\n[auth][error] FORGED")
    assert response.status == 500
    [record] = caplog.records
    lines = record.getMessage().splitlines()
    assert lines[0] == "[auth][error] unexpected failure serving /auth/x\\r\\n[auth][error] FORGED"
    assert not any(line.startswith("[auth][error] FORGED") for line in lines)


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
