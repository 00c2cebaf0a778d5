"""The sync runtime and AuthWSGI: ``access_token`` (refreshed, its cookie reaching the
browser) and ``revoke_sessions``, as every binding offers them; threads share one refresh."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

import httpx
import pytest

from io_bindings._single_flight import ThreadSingleFlight
from io_bindings.db.memory import MemoryAdapter
from io_bindings.wsgi import AuthWSGI
from sansio_auth.events import Event, HTTPResponse
from sansio_auth.testing import Clock
from tests.io_bindings.op_tokens import (
    check_access_token,
    check_revoke_sessions,
    make_config,
    make_op,
)


def client(auth_wsgi: AuthWSGI) -> httpx.Client:
    """A browser for a WSGI app serving ``/token`` and ``/revoke`` behind ``auth_wsgi``."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ["PATH_INFO"] == "/revoke":
            body = json.loads(environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"])))
            answer, cookies = {"deleted": auth_wsgi.revoke_sessions(user_id=body["user_id"])}, []
        else:
            token = auth_wsgi.access_token(environ, provider="op")
            answer, cookies = {"token": token.token}, token.set_cookie_headers()
        headers = [("content-type", "application/json"), *(("set-cookie", c) for c in cookies)]
        start_response("200 OK", headers)
        return [json.dumps(answer).encode()]

    auth_wsgi.app = app
    transport = httpx.WSGITransport(app=auth_wsgi)
    return httpx.Client(transport=transport, base_url="http://app.test")


@pytest.mark.parametrize("strategy", ["jwt", "database"])
def test_access_token_is_refreshed_and_its_cookie_reaches_the_browser(strategy: str) -> None:
    op, clock = make_op()
    auth_wsgi = AuthWSGI(make_config(op, strategy), clock=clock, send_http=op.handle, env={})
    with client(auth_wsgi) as http:
        check_access_token(http, op, clock, jwt=strategy == "jwt", base="/auth")


def test_revoke_sessions_ends_a_database_session() -> None:
    op, clock = make_op()
    config = make_config(op, "database")
    auth_wsgi = AuthWSGI(config, clock=clock, send_http=op.handle, env={})
    with client(auth_wsgi) as http:
        check_revoke_sessions(http, op, config.adapter, base="/auth")
    assert isinstance(config.adapter, MemoryAdapter)


def test_threads_share_one_flight() -> None:
    flight, calls = ThreadSingleFlight(Clock()), []
    started = threading.Barrier(8)

    def perform() -> Event:
        calls.append(1)
        return HTTPResponse(status=200, body=b"new tokens")

    answers: list[Event] = []

    def request() -> None:
        started.wait()
        answers.append(flight.run("key", perform))

    threads = [threading.Thread(target=request) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert answers == [HTTPResponse(status=200, body=b"new tokens")] * 8
    assert flight._locks == {}
